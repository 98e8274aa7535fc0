(text) => {
  // after "Copy answer with references" / "Copy BibTeX": the box's text to the clipboard (a fallback off https)
  try {
    if (navigator.clipboard && window.isSecureContext) { navigator.clipboard.writeText(text); return []; }
    const area = document.createElement('textarea');
    area.value = text; area.style.position = 'fixed'; area.style.opacity = '0';
    document.body.appendChild(area); area.select(); document.execCommand('copy'); area.remove();
  } catch (e) { /* the box still shows the text */ }
  return [];
}
