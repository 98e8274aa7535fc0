// js_on_load of the sources panel (gr.HTML): `element` and `trigger` come from gradio.
element.addEventListener('click', (e) => {
  const b = e.target.closest('button.show-abstract');
  if (b && b.dataset.paperId) { trigger('click', {paper_id: b.dataset.paperId}); }
});
