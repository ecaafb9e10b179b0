// The page's keys (outside fields), and buttons clicked with the mouse
// letting the focus go.
'use strict';

// Keys, anywhere but in a field: ← and → go through the history a tick
// at a time, End goes live; with controls, Space pauses or resumes the
// agent, S steps it and P pauses or resumes them all; C collapses the
// idle subtrees, A turns Auto-collapse on or off, E expands everything.
// On a button, a link or a checkbox focused from the keyboard, Space and
// Enter are theirs; a button clicked with the mouse lets the focus go
// (setupClickBlur), so the keys work after a click on ◀ or Step.
function setupKeys() {
  document.addEventListener('keydown', (e) => {
    const el = document.activeElement;
    if (e.ctrlKey || e.metaKey || e.altKey || (el && isField(el))) return;
    if (el && el.closest('button, a, input, summary') && (e.key === ' ' || e.key === 'Enter')) return;
    // P: every agent, with or without one shown.
    if (e.key.toLowerCase() === 'p') {
      if ($('#world-ctl').hidden || $('#btn-pause-all').disabled) return;
      controlAll($('#btn-pause-all').dataset.op || 'pause');
      e.preventDefault();
      return;
    }
    if ($('#agent-view').hidden) return;
    // Collapsing needs a tree only; the others a history.
    const fold = { c: foldIdle, e: unfoldAll, a: () => setAutoFold(!AUTO.on) }[e.key.toLowerCase()];
    if (fold && S.tree) {
      fold();
      e.preventDefault();
      return;
    }
    if (!S.latest) return;
    switch (e.key) {
      case 'ArrowLeft': scrubTo(shownSeq() - 1); break;
      case 'ArrowRight': scrubTo(shownSeq() + 1); break;
      case 'End': setLive(true); break;
      case ' ':
        if (!canControl() || !S.token) return;
        control(S.agent && S.agent.paused ? 'resume' : 'pause');
        break;
      case 's':
        if (!canControl() || !S.token) return;
        control('step');
        break;
      default: return;
    }
    e.preventDefault();
  });
}

// isField reports whether el takes keys for itself: text fields, lists,
// and the inputs that arrows move (radio buttons, the slider).
function isField(el) {
  if (el.isContentEditable || el.closest('textarea, select')) return true;
  return el.tagName === 'INPUT' && !/^(checkbox|button|submit|reset)$/.test(el.type);
}

// setupClickBlur: a button (or link, tab, checkbox) clicked with the
// mouse does not keep the focus, which would take the page's keys (and
// Space would press it again); one reached with Tab keeps it.
function setupClickBlur() {
  document.addEventListener('click', (e) => {
    if (!e.detail) return; // from the keyboard
    const el = e.target.closest && e.target.closest('button, a, input[type=checkbox], summary');
    // One of the edit form keeps the focus: the form's keys (Esc cancels) stay with it.
    if (el && document.activeElement === el && !el.closest('.edit-form')) el.blur();
  });
}
