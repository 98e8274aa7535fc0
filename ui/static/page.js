// js_on_load of a hidden gr.HTML (#page-script): page-wide behaviour gradio has no setting for.
// - [n] previews are placed in the viewport (fixed position), never clipped by the chat's scrolling box.
// - After an answer, focus returns to the question box when it was lost (it fell to the page body).
// - The closed settings drawer is inert: its fields leave the Tab order and the accessibility tree.
// - The send and stop buttons have names; Clear asks before it removes the conversation.
// - A draft check's results are scrolled into view and their heading takes the focus.
(() => {
  if (window.__ragPage) return;
  window.__ragPage = true;
  const MARGIN = 8;

  // -- [n] previews --------------------------------------------------------------------------------------------
  let openCite = null;
  let closing = null;
  function place(cite) {
    const tip = cite.querySelector('.cite-tip');
    if (!tip) return;
    cite.classList.add('tip-open');
    const at = cite.getBoundingClientRect();
    const vw = document.documentElement.clientWidth, vh = document.documentElement.clientHeight;
    tip.style.maxWidth = `${vw - 2 * MARGIN}px`;
    tip.style.maxHeight = `${vh - 2 * MARGIN}px`;
    const box = tip.getBoundingClientRect();
    const above = at.top - box.height - 6, below = at.bottom + 6;
    const top = above >= MARGIN || below + box.height > vh - MARGIN ? Math.max(MARGIN, above) : below;
    const left = Math.min(Math.max(MARGIN, at.left), vw - box.width - MARGIN);
    tip.style.top = `${Math.round(Math.min(top, vh - box.height - MARGIN))}px`;
    tip.style.left = `${Math.round(Math.max(MARGIN, left))}px`;
  }
  function open(cite) {
    clearTimeout(closing);
    if (openCite && openCite !== cite) openCite.classList.remove('tip-open');
    openCite = cite;
    place(cite);
  }
  function close(now) {
    clearTimeout(closing);
    const shut = () => { if (openCite) openCite.classList.remove('tip-open'); openCite = null; };
    if (now) shut(); else closing = setTimeout(shut, 150);
  }
  const citeOf = (node) => (node && node.closest ? node.closest('#chat a.cite') : null);
  document.addEventListener('pointerover', (e) => { const c = citeOf(e.target); if (c) open(c); });
  document.addEventListener('pointerout', (e) => {
    const c = citeOf(e.target);
    if (c && !c.contains(e.relatedTarget)) close(false);
  });
  document.addEventListener('focusin', (e) => { const c = citeOf(e.target); if (c) open(c); else if (openCite) close(true); });
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape' && openCite) close(true); });
  window.addEventListener('scroll', () => close(true), true);

  // -- names, the drawer, focus --------------------------------------------------------------------------------
  const NAMES = {'submit-button': 'Send question', 'stop-button': 'Stop the answer'};
  let wasBusy = false;
  function tend() {
    for (const [id, name] of Object.entries(NAMES)) {
      document.querySelectorAll(`#question [data-testid="${id}"]`).forEach((b) => {
        if (b.getAttribute('aria-label') !== name) { b.setAttribute('aria-label', name); b.title = name; }
      });
    }
    const drawer = document.getElementById('settings');
    const content = drawer && drawer.querySelector('.sidebar-content');
    if (content) {
      const shut = !/\bopen\b/.test(drawer.className);
      if (content.inert !== shut) content.inert = shut;
    }
    const box = document.querySelector('#question textarea');
    if (box) {
      const busy = box.disabled;
      const at = document.activeElement;  // lost: on the body, or on something hidden (the stop button, gone)
      const lost = !at || at === document.body || !at.getClientRects().length || !!at.closest('#question');
      if (wasBusy && !busy && lost) box.focus();  // an answer ended and took the focus with it
      wasBusy = busy;
    }
    reveal();
  }
  function reveal() {  // a check's new results: into view, the focus on their heading (again while not laid out)
    const title = document.querySelector('#draft-results .dc-title:not([data-shown])');
    if (!title) return;
    title.scrollIntoView({block: 'start'});
    title.focus({preventScroll: true});
    const tries = Number(title.dataset.tries || 0) + 1;
    if (document.activeElement === title || tries > 50) title.dataset.shown = 'yes';
    else { title.dataset.tries = String(tries); setTimeout(reveal, 100); }
  }
  new MutationObserver(tend).observe(document.body, {subtree: true, childList: true, attributes: true,
    attributeFilter: ['class', 'disabled', 'data-testid']});
  tend();

  // -- Clear asks first -----------------------------------------------------------------------------------------
  document.addEventListener('click', (e) => {
    const clear = e.target && e.target.closest ? e.target.closest('#chat button[aria-label="Clear"]') : null;
    if (!clear || !document.querySelector('#chat [data-testid="bot"], #chat [data-testid="user"]')) return;
    if (!window.confirm('Clear this conversation? Its answers and sources leave this page and this browser.')) {
      e.preventDefault();
      e.stopImmediatePropagation();
      return;
    }
    try {  // the browser's copy goes at once (the server's answer to the clear overwrites it too)
      Object.keys(localStorage).filter((k) => k.startsWith('rag-papers-')).forEach((k) => localStorage.removeItem(k));
    } catch (err) { /* storage blocked: nothing was kept */ }
  }, true);
})();
