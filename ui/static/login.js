// The login page (ui/login_page.py adds this script): gradio's form shows nothing when a login is refused with
// 429 (too many attempts), so show the server's message under the form, as an alert. One message at a time: while
// it shows, gradio's red "Incorrect Credentials" of an earlier attempt is hidden (it is shown again by the next 400).
(() => {
  const fetchFirst = window.fetch.bind(window);
  const earlier = (shown) => document.querySelectorAll('.creds').forEach((el) => {
    el.style.display = shown ? '' : 'none';
  });
  const show = (text) => {
    let note = document.getElementById('login-note');
    if (!note) {
      note = document.createElement('p');
      note.id = 'login-note';
      note.setAttribute('role', 'alert');
      note.style.cssText = 'margin:.6rem 0;padding:.5rem .7rem;border-radius:6px;background:#fef3c7;'
        + 'color:#7c2d12;font-weight:600;';
      const button = [...document.querySelectorAll('button')].find((b) => /log\s*in/i.test(b.textContent || ''));
      if (button && button.parentElement) button.parentElement.insertBefore(note, button);
      else document.body.prepend(note);
    }
    note.textContent = text;
    earlier(false);
  };
  window.fetch = async (input, init) => {
    const response = await fetchFirst(input, init);
    try {
      const url = new URL(typeof input === 'string' ? input : input.url, location.href);
      if (/\/login\/?$/.test(url.pathname)) {
        if (response.status === 429) {
          const body = await response.clone().json().catch(() => ({}));
          show(body.detail || 'Too many attempts: wait a minute, then log in again.');
        } else if (response.status === 400) {
          const note = document.getElementById('login-note');
          if (note) note.remove();
          earlier(true);
        }
      }
    } catch (e) { /* the form works as before */ }
    return response;
  };
})();
