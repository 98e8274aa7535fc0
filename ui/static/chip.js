// js_on_load of the filter chip (gr.HTML): its Clear button empties the filters.
element.addEventListener('click', (e) => { if (e.target.closest('button.clear-filters')) trigger('click', {}); });
