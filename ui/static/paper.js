// js_on_load of the abstract dialog (gr.HTML): `element` and `trigger` come from gradio.
element.addEventListener('click', (e) => { if (e.target.closest('[data-close]')) trigger('click', {}); });
document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && element.querySelector('.paper-modal')) trigger('click', {});
});
