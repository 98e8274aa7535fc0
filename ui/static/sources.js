// js_on_load of the sources panel (gr.HTML): `element` and `trigger` come from gradio. It also wires the chat:
// the panel follows the message the reader points at or clicks; [n] opens that message's own source chip and
// marks its card; "Show abstract" and "Copy" in a message work without a round trip for the copy.
const sectionOf = (aid) => element.querySelector(`section.turn-sources[data-aid="${aid}"]`);
function follow(aid, n) {
  const target = sectionOf(aid);
  if (!target) return;
  if (target.hidden) {
    element.querySelectorAll('section.turn-sources').forEach((s) => { s.hidden = s !== target; });
  } else if (!n) {
    return;  // pointing at the message already shown keeps its marked card
  }
  element.querySelectorAll('.src-card.marked').forEach((c) => c.classList.remove('marked'));
  const card = n ? element.querySelector(`#p-${aid}-${n}`) : null;
  if (card) {
    const fold = card.closest('details');
    if (fold) fold.open = true;
    card.classList.add('marked');
    card.scrollIntoView({block: 'nearest'});
  }
}
function copyText(text, button) {
  const done = () => { button.textContent = 'Copied'; setTimeout(() => { button.textContent = 'Copy'; }, 1500); };
  const fallback = () => {
    const area = document.createElement('textarea');
    area.value = text; area.setAttribute('readonly', ''); area.style.position = 'fixed'; area.style.opacity = '0';
    document.body.appendChild(area); area.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
    area.remove();
    if (ok) done();
  };
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, fallback);
  else fallback();
}
const messageOf = (node) => (node && node.closest ? node.closest('#chat .answer[id]') : null);
// pointermove, not mouseover: content scrolling under a still pointer must not switch the panel
['pointermove', 'focusin'].forEach((type) => document.addEventListener(type, (e) => {
  const msg = messageOf(e.target);
  if (msg) follow(msg.id);
}));
document.addEventListener('click', (e) => {
  const t = e.target;
  if (!t || !t.closest) return;
  const cite = t.closest('#chat a.cite');
  if (cite) {
    e.preventDefault();
    const m = /#(a\d+)-src-(\d+)/.exec(cite.getAttribute('href') || '');
    if (!m) return;
    const chip = document.getElementById(`${m[1]}-src-${m[2]}`);
    if (chip) { chip.open = true; const fold = chip.parentElement.closest('details'); if (fold) fold.open = true; }
    follow(m[1], m[2]);
    if (chip) chip.scrollIntoView({block: 'nearest'});
    return;
  }
  const copy = t.closest('#chat button.copy-answer');
  if (copy) { copyText(copy.value, copy); return; }
  const show = t.closest('#chat button.show-abstract');
  if (show) {
    const [aid, n] = (show.value || '').split('|');
    trigger('click', {aid, n});
    return;
  }
  const msg = messageOf(t);
  if (msg) follow(msg.id);
});
element.addEventListener('click', (e) => {
  const b = e.target.closest('button.show-abstract');
  if (b) trigger('click', {paper_id: b.dataset.paperId, aid: b.dataset.aid, n: b.dataset.n});
});
