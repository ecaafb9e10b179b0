// Playback: ▶ Play steps through the history (live) or a recording at the
// pace it was recorded, the records' game times apart (scaled by the
// speed chosen), up to the newest record (then live) or the recording's
// end. Any other move through the timeline stops it.
'use strict';

// A record is shown at least PLAY_MIN_MS and at most PLAY_MAX_MS before
// the next: records of the same instant (between ticks) still show, and
// an agent paused for minutes does not hold playback up.
const PLAY_MIN_MS = 10;
const PLAY_MAX_MS = 1000;
// PLAY_WAIT_MS is how long playback waits for a record it asked for
// before giving up.
const PLAY_WAIT_MS = 5000;

function renderPlay() {
  const b = $('#btn-play');
  const on = S.play.on;
  const text = on ? '⏸ Pause' : '▶ Play';
  if (b.textContent !== text) b.textContent = text;
  b.classList.toggle('on', on);
  const title = on ? 'Stop playing (any move through the timeline stops it too)'
    : 'Play the ' + (S.rec ? 'recording' : 'history') + ' at its recorded pace, from the tick shown (from an early one when the newest is shown), up to ' +
      (S.rec ? 'its end' : 'the newest tick, then live');
  if (b.title !== title) b.title = title;
  if (b.disabled !== S.timeline.length < 2) b.disabled = S.timeline.length < 2;
}

// stopPlay stops playback, if it plays; the record shown stays.
function stopPlay() {
  if (S.play.stepping || !S.play.on) return;
  S.play.on = false;
  clearTimeout(S.play.timer);
  S.play.timer = 0;
  renderPlay();
}

// playShow shows record seq as a step of playback.
function playShow(seq) {
  S.play.stepping = true;
  try {
    scrubTo(seq);
  } finally {
    S.play.stepping = false;
  }
  S.play.since = performance.now();
}

function startPlay() {
  const tl = S.timeline;
  if (S.play.on || !S.latest || tl.length < 2) return;
  S.play.on = true;
  renderPlay();
  // At the newest record (or live): from the oldest; for an agent that
  // ticks on, a tenth of the way in, as the oldest records are leaving.
  if (S.live || shownSeq() >= tl[tl.length - 1][0]) {
    const a = S.agent || {};
    const moving = !S.rec && !a.paused && !a.removed && tl.length >= historyLen();
    playShow(tl[moving ? Math.floor(tl.length / 10) : 0][0]);
  } else {
    S.play.since = performance.now();
  }
  playSchedule();
}

// playIndex is the timeline's index of the record shown, or -1.
function playIndex() {
  const tl = S.timeline;
  const seq = shownSeq();
  const i = tl.length ? seq - tl[0][0] : -1;
  return i >= 0 && i < tl.length && tl[i][0] === seq ? i : tl.findIndex((t) => t[0] === seq);
}

// playSchedule waits as long as the record shown and the next one are
// apart in game time (scaled, clamped), from when it was asked for.
function playSchedule() {
  const tl = S.timeline;
  const i = playIndex();
  const dt = i >= 0 && i + 1 < tl.length ? tl[i + 1][2] - tl[i][2] : 50;
  const wait = Math.min(PLAY_MAX_MS, Math.max(PLAY_MIN_MS, dt / S.play.speed));
  clearTimeout(S.play.timer);
  S.play.timer = setTimeout(playTick, Math.max(0, S.play.since + wait - performance.now()));
}

// arrived says whether the record asked for is shown (live, it is
// fetched).
function arrived() {
  return !!S.rec || (S.scrubWait < 0 && !!S.shown && S.shown.seq === S.scrubSeq);
}

function playTick() {
  S.play.timer = 0;
  if (!S.play.on) return;
  const tl = S.timeline;
  if (S.live || !tl.length) {
    // Gone live meanwhile (a hot reload starts the history again).
    stopPlay();
    return;
  }
  if (!arrived()) {
    if (performance.now() - S.play.since > PLAY_WAIT_MS) stopPlay();
    else S.play.timer = setTimeout(playTick, 15);
    return;
  }
  const i = playIndex();
  const next = i >= 0 ? tl[i + 1] : null;
  if (!next) {
    // The end of a recording: it stays there. (Live, the newest record
    // is the live view: see below.)
    stopPlay();
    return;
  }
  const end = S.rec ? i + 2 >= tl.length : next[0] >= S.latest.seq;
  playShow(next[0]);
  if (end || ($('#play-marks').checked && next[6])) {
    // The newest record of a live agent: scrubTo went live.
    stopPlay();
    return;
  }
  playSchedule();
}

function setupPlayback() {
  $('#btn-play').onclick = () => (S.play.on ? stopPlay() : startPlay());
  const speed = $('#play-speed');
  speed.addEventListener('change', () => {
    S.play.speed = Number(speed.value) || 1;
    speed.blur(); // the page's keys (← →) go on working
    if (S.play.on && S.play.timer && arrived()) playSchedule();
  });
  renderPlay();
}
