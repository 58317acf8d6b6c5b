// The contention picture: a timeline per lock of the last 30 s (10 s or 60 s at the reader's choice) and histograms of acquire latency
// and hand-off time, drawn as SVG from the events of GET /actuator/distlock?eventsAfter=<sequence>.
// Every bar carries its data in data-* attributes (lock, owner, start, end in epoch ms), so that
// tests and curious readers can check what is drawn.
const Timeline = (() => {
  const SVG = 'http://www.w3.org/2000/svg';
  let windowMs = 30000;
  const KEEP_MS = 60000;
  const LABEL_W = 150;
  const HOLD_H = 18, WAIT_H = 6, ROW_GAP = 10;
  const BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000];

  let events = [];          // events of the last KEEP_MS, oldest first
  let lastSequence = 0;
  let waiters = [];         // waiting right now, from the same report
  let offset = 0;           // server clock minus browser clock
  let clientId = '?';
  let recording = true;
  let selected = null;      // lock shown in the histograms
  let picked = false;       // whether the reader chose it

  const serverNow = () => Date.now() + offset;

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  function update(report) {
    clientId = report.clientId;
    waiters = report.waiters || [];
    const log = report.events;
    if (!log) return;
    recording = log.recording;
    offset = log.time - Date.now();
    if (log.lastSequence < lastSequence) events = []; // the server restarted
    events.push(...log.events);
    lastSequence = log.lastSequence;
    const oldest = serverNow() - KEEP_MS;
    events = events.filter(e => e.time >= oldest);
  }

  // Pairs events into holds (bars), waits and gave-ups, per lock name.
  function model(now) {
    const locks = new Map();
    const lock = name => {
      if (!locks.has(name)) locks.set(name, { name, holds: [], waits: [], latencies: [], handoffs: [], acquisitions: [], ends: [] });
      return locks.get(name);
    };
    const open = new Map();
    for (const e of events) {
      const l = lock(e.name);
      const key = e.name + '|' + e.ownerId;
      if (e.type === 'acquired') {
        const hold = open.get(key);
        if (hold) { hold.depth++; continue; } // reentrant: the outer hold's bar covers it
        const waitStart = e.time - (e.waitMillis || 0);
        open.set(key, { lock: e.name, ownerId: e.ownerId, thread: e.thread, start: e.time, waited: e.waitMillis || 0, depth: 1 });
        l.latencies.push(e.waitMillis || 0);
        if (e.waitMillis > 0.5) l.waits.push({ start: waitStart, end: e.time, thread: e.thread, gaveUp: false });
        l.acquisitions.push({ time: e.time, waitStart, hold: open.get(key) });
      } else if (e.type === 'released' || e.type === 'lease-lost') {
        const hold = open.get(key);
        const lost = e.type === 'lease-lost';
        if (hold && --hold.depth > 0 && !lost) continue;
        open.delete(key);
        l.holds.push(Object.assign(hold || { lock: e.name, ownerId: e.ownerId, thread: e.thread, start: null }, { end: e.time, lost }));
        l.ends.push(e.time);
      } else if (e.type === 'timed-out') {
        l.waits.push({ start: e.time - (e.waitMillis || 0), end: e.time, thread: e.thread, gaveUp: true });
      }
    }
    for (const hold of open.values()) lock(hold.lock).holds.push(Object.assign(hold, { end: now, open: true }));
    // A hand-off: the lock passed from a releasing owner to one already waiting for it. Matched once
    // every event is in, as a release can be reported after the acquisition it made possible.
    for (const l of locks.values()) {
      l.ends.sort((a, b) => a - b);
      for (const a of l.acquisitions) {
        const previous = l.ends.filter(t => t <= a.time && t >= a.waitStart).pop();
        if (previous != null) {
          a.hold.handoff = a.time - previous;
          l.handoffs.push(a.hold.handoff);
        }
      }
    }
    for (const w of waiters) {
      for (const name of String(w.name).split(',')) {
        lock(name).waits.push({ start: Date.parse(w.waitingSince), end: now, thread: w.thread, gaveUp: false, live: true });
      }
    }
    return [...locks.values()];
  }

  // Greedy lanes: an item goes to the first lane whose last item ended before it starts.
  function lanes(items) {
    const ends = [];
    for (const item of items.sort((a, b) => (a.start ?? -Infinity) - (b.start ?? -Infinity))) {
      let lane = ends.findIndex(end => end <= (item.start ?? -Infinity));
      if (lane < 0) { lane = ends.length; ends.push(0); }
      ends[lane] = item.end;
      item.lane = lane;
    }
    return Math.max(ends.length, 1);
  }

  // What fits in a bar: the whole name, else its end, which tells worker-1 from worker-2.
  function fit(text, px) {
    const chars = Math.floor(px / 6.2);
    if (chars >= text.length) return text;
    return chars >= 4 ? '…' + text.slice(text.length - chars + 1) : '';
  }

  function owner(item) {
    return item.thread ? item.thread : 'owner ' + item.ownerId;
  }

  function drawTimeline(locks, now) {
    const svg = document.getElementById('timeline');
    const width = svg.parentElement.clientWidth || 900;
    const from = now - windowMs;
    const x = t => LABEL_W + Math.max(0, (t - from)) / windowMs * (width - LABEL_W - 10);
    svg.replaceChildren();
    const shown = locks.filter(l => l.holds.some(h => h.end >= from) || l.waits.some(w => w.end >= from));
    let y = 22;
    svg.setAttribute('data-window', windowMs);
    const seconds = windowMs / 1000, step = seconds / 6;
    for (let s = 0; s <= seconds; s += step) {
      const tx = x(from + s * 1000);
      el('line', { x1: tx, x2: tx, y1: 16, y2: '100%', class: 'tick' }, svg);
      el('text', { x: tx, y: 12, class: 'axis', 'text-anchor': 'middle' }, svg).textContent =
        s === seconds ? 'now' : (s - seconds).toFixed(step < 1 ? 1 : 0) + ' s';
    }
    for (const l of shown) {
      const holdLanes = lanes(l.holds);
      const waitLanes = l.waits.length ? lanes(l.waits) : 0;
      const height = holdLanes * HOLD_H + waitLanes * (WAIT_H + 2);
      const g = el('g', { class: 'lock' + (l.name === selected ? ' selected' : ''), 'data-lock': l.name }, svg);
      el('rect', { x: 0, y: y - 3, width, height: height + 6, class: 'row' }, g);
      const label = el('text', { x: 4, y: y + 13, class: 'name' }, g);
      label.textContent = l.name.length > 20 ? l.name.slice(0, 19) + '…' : l.name;
      el('title', {}, label).textContent = l.name;
      g.addEventListener('click', () => { selected = l.name; picked = true; render(); });
      for (const h of l.holds) {
        if (h.end < from) continue;
        const x0 = x(h.start ?? from), x1 = Math.max(x(h.end), x0 + 1);
        const bar = el('rect', {
          x: x0, y: y + h.lane * HOLD_H, width: x1 - x0, height: HOLD_H - 3, rx: 2,
          class: 'hold' + (h.lost ? ' lost' : '') + (h.open ? ' open' : ''),
          'data-lock': l.name, 'data-owner': clientId + '/' + owner(h), 'data-owner-id': h.ownerId,
          'data-start': h.start ?? '', 'data-end': h.open ? '' : h.end, 'data-lost': h.lost ? 'true' : 'false'
        }, g);
        const held = h.start != null ? ((h.end - h.start).toFixed(0) + ' ms') : 'since before the window';
        el('title', {}, bar).textContent = `${clientId}/${owner(h)}: held ${held}`
          + (h.waited > 0.5 ? `, waited ${h.waited.toFixed(1)} ms` : '')
          + (h.handoff != null ? `, handed over in ${h.handoff.toFixed(1)} ms` : '')
          + (h.lost ? ' — LEASE LOST' : '');
        const text = fit((h.lost ? '✗ ' : '') + owner(h), x1 - x0 - 5);
        if (text) el('text', { x: x0 + 3, y: y + h.lane * HOLD_H + 11, class: 'bar-label' }, g).textContent = text;
      }
      const waitTop = y + holdLanes * HOLD_H;
      for (const w of l.waits) {
        if (w.end < from) continue;
        const x0 = x(w.start), x1 = Math.max(x(w.end), x0 + 1);
        const wait = el('rect', {
          x: x0, y: waitTop + w.lane * (WAIT_H + 2), width: x1 - x0, height: WAIT_H,
          class: 'wait' + (w.gaveUp ? ' gave-up' : '') + (w.live ? ' live' : ''), 'data-lock': l.name, 'data-owner': owner(w)
        }, g);
        el('title', {}, wait).textContent = `${owner(w)} ${w.gaveUp ? 'gave up after' : w.live ? 'waiting for' : 'waited'} `
          + `${(w.end - w.start).toFixed(0)} ms`;
      }
      y += height + ROW_GAP;
    }
    if (!shown.length) {
      el('text', { x: LABEL_W, y: 44, class: 'empty' }, svg).textContent = recording
        ? `No lock taken in the last ${windowMs / 1000} s: run a demo.`
        : 'Lock events are not recorded: set distlock.events.enabled=true.';
      y = 60;
    }
    svg.setAttribute('height', y + 4);
  }

  function bucketOf(ms) {
    const i = BUCKETS.findIndex(b => ms < b);
    return i < 0 ? BUCKETS.length : i;
  }

  function bucketLabel(i) {
    const f = ms => ms >= 1000 ? ms / 1000 + 's' : ms + '';
    if (i === 0) return '<1';
    if (i === BUCKETS.length) return '≥' + f(BUCKETS[i - 1]);
    return f(BUCKETS[i - 1]) + '–' + f(BUCKETS[i]);
  }

  function drawHistogram(id, values, unitNote) {
    const svg = document.getElementById(id);
    const width = svg.parentElement.clientWidth || 400, height = 150, base = height - 34, left = 8;
    svg.replaceChildren();
    svg.setAttribute('height', height);
    const counts = new Array(BUCKETS.length + 1).fill(0);
    values.forEach(v => counts[bucketOf(v)]++);
    const max = Math.max(1, ...counts);
    const slot = (width - left * 2) / counts.length;
    counts.forEach((count, i) => {
      const h = count / max * (base - 16);
      const bx = left + i * slot + 2;
      const bar = el('rect', { x: bx, y: base - h, width: slot - 4, height: h, class: 'hist',
        'data-bucket': bucketLabel(i), 'data-count': count }, svg);
      el('title', {}, bar).textContent = `${bucketLabel(i)} ms: ${count}`;
      if (count) el('text', { x: bx + (slot - 4) / 2, y: base - h - 3, class: 'count', 'text-anchor': 'middle' }, svg).textContent = count;
      el('text', { x: bx + (slot - 4) / 2, y: base + 13, class: 'axis', 'text-anchor': 'middle' }, svg).textContent = bucketLabel(i);
    });
    el('line', { x1: left, x2: width - left, y1: base, y2: base, class: 'baseline' }, svg);
    const sorted = [...values].sort((a, b) => a - b);
    const pct = p => sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))].toFixed(1) : '–';
    el('text', { x: left, y: height - 4, class: 'axis' }, svg).textContent = sorted.length
      ? `ms · n=${sorted.length} · p50 ${pct(0.5)} · p95 ${pct(0.95)} · max ${sorted[sorted.length - 1].toFixed(1)}`
      : 'ms · ' + unitNote;
  }

  function drawHistograms(locks) {
    const select = document.getElementById('hist-lock');
    const names = locks.filter(l => l.latencies.length).map(l => l.name);
    if (!picked || !names.includes(selected)) {
      // The busiest lock until the reader picks one.
      selected = locks.filter(l => l.latencies.length)
        .sort((a, b) => b.latencies.length - a.latencies.length)[0]?.name ?? null;
    }
    const options = names.map(n => `<option${n === selected ? ' selected' : ''}>${esc(n)}</option>`).join('');
    if (select.dataset.options !== options) { select.innerHTML = options; select.dataset.options = options; }
    const lock = locks.find(l => l.name === selected);
    drawHistogram('hist-acquire', lock ? lock.latencies : [], 'no acquisition in the last 60 s');
    drawHistogram('hist-handoff', lock ? lock.handoffs : [], 'no hand-off to a waiting owner in the last 60 s');
  }

  function render() {
    const now = serverNow();
    const locks = model(now);
    drawTimeline(locks, now);
    drawHistograms(locks);
  }

  function start() {
    document.getElementById('timeline-window').addEventListener('change', e => { windowMs = Number(e.target.value) * 1000; render(); });
    document.getElementById('hist-lock').addEventListener('change', e => { selected = e.target.value; picked = true; render(); });
    setInterval(render, 250);
  }

  return { update, render, start, lastSequence: () => lastSequence };
})();
