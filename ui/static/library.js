// js_on_load of the library tab (gr.HTML): filter the list as the reader types; a title opens its abstract.
element.addEventListener('input', (e) => {
  if (!e.target.classList.contains('lib-filter')) return;
  const words = e.target.value.toLowerCase().split(/\s+/).filter(Boolean);
  element.querySelectorAll('li.lib-item').forEach((li) => {
    const text = li.dataset.search || '';
    li.hidden = !words.every((w) => text.includes(w));
  });
});
element.addEventListener('click', (e) => {
  const b = e.target.closest('button.show-abstract');
  if (b && b.dataset.paperId) trigger('click', {paper_id: b.dataset.paperId});
});
