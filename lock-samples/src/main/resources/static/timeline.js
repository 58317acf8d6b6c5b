// The contention picture: a timeline per lock of the last 30 s (10 s or 60 s at the reader's choice) and histograms of acquire latency
// and hand-off time, drawn as SVG from the events of GET /actuator/distlock?eventsAfter=<sequence>.
// Every bar carries its data in data-* attributes (lock, owner, start, end in epoch ms), so that
// tests and curious readers can check what is drawn.
const Timeline = (() => {
  const SVG = 'http://www.w3.org/2000/svg';
  let windowMs = 30000;
  const KEEP_MS = 60000;
  const LABEL_MIN_W = 150, LABEL_MAX_SHARE = 0.4, LABEL_LINE_H = 13;
  const HOLD_H = 18, WAIT_H = 6, ROW_GAP = 10, OWNER_LINE_H = 13;
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
      if (e.lockType) l.type = e.lockType; // 'semaphore': its permits, several held at once
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

  // Width of a text as the page draws it, measured in the SVG so that the font is counted; kept, as
  // the page redraws every 250 ms with mostly the same names.
  const widths = new Map();
  function textWidth(svg, text, cls) {
    const key = cls + '|' + text;
    if (!widths.has(key)) {
      const probe = el('text', { x: 0, y: -50, class: cls }, svg);
      probe.textContent = text;
      widths.set(key, probe.getComputedTextLength());
      probe.remove();
      if (widths.size > 5000) widths.clear();
    }
    return widths.get(key);
  }

  // A lock name in lines no wider than px, broken after ':', '-', '.', '/' or '_' where it can be
  // and inside a word only when one part alone is too wide. The lines together are the whole name.
  function wrap(svg, name, px) {
    if (textWidth(svg, name, 'name') <= px) return [name];
    const lines = [];
    let line = '';
    for (const part of name.match(/[^:\-./_]*[:\-./_]?/g).filter(p => p)) {
      if (textWidth(svg, line + part, 'name') <= px) { line += part; continue; }
      if (line) lines.push(line);
      line = '';
      for (const ch of part) {
        if (line && textWidth(svg, line + ch, 'name') > px) { lines.push(line); line = ''; }
        line += ch;
      }
    }
    if (line) lines.push(line);
    return lines;
  }

  function owner(item) {
    return item.thread ? item.thread : 'owner ' + item.ownerId;
  }

  function drawTimeline(locks, now) {
    const svg = document.getElementById('timeline');
    const width = svg.parentElement.clientWidth || 900;
    const from = now - windowMs;
    svg.replaceChildren();
    const shown = locks.filter(l => l.holds.some(h => h.end >= from) || l.waits.some(w => w.end >= from));
    // The label column is as wide as the longest name, within bounds; a longer name wraps, never cut.
    const longest = Math.max(0, ...shown.map(l => textWidth(svg, l.name, 'name')));
    const labelW = Math.round(Math.min(Math.max(longest + 14, LABEL_MIN_W), width * LABEL_MAX_SHARE));
    const x = t => labelW + Math.max(0, (t - from)) / windowMs * (width - labelW - 10);
    let y = 22;
    svg.setAttribute('data-window', windowMs);
    svg.setAttribute('data-plot-left', labelW);
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
      const lines = wrap(svg, l.name, labelW - 10);
      // A semaphore says so under its name: its bars may overlap, one lane per permit held at once.
      const kindLines = l.type ? 1 : 0;
      // Each bar is labelled with its whole owner: inside when it fits, else in lines under the bars,
      // starting where the bar starts, in as many lines as keep those labels apart.
      const owners = [];
      for (const h of l.holds) {
        if (h.end < from) continue;
        h.x0 = x(h.start ?? from);
        h.x1 = Math.max(x(h.end), h.x0 + 1);
        h.label = (h.lost ? '✗ ' : '') + owner(h);
        const textW = textWidth(svg, h.label, 'bar-label');
        h.inside = textW + 6 <= h.x1 - h.x0;
        if (!h.inside) owners.push({ hold: h, start: h.x0, end: h.x0 + textW + 8 });
      }
      const ownerLines = owners.length ? lanes(owners) : 0;
      const barsH = holdLanes * HOLD_H + ownerLines * OWNER_LINE_H;
      const height = Math.max(barsH + waitLanes * (WAIT_H + 2), (lines.length + kindLines) * LABEL_LINE_H + 2);
      const g = el('g', {
        class: 'lock' + (l.name === selected ? ' selected' : ''), 'data-lock': l.name, 'data-lock-type': l.type || ''
      }, svg);
      el('rect', { x: 0, y: y - 3, width, height: height + 6, class: 'row' }, g);
      const label = el('text', { x: 4, y: y + 12, class: 'name' }, g);
      lines.forEach((line, i) => { el('tspan', { x: 4, dy: i ? LABEL_LINE_H : 0 }, label).textContent = line; });
      if (l.type) {
        el('text', { x: 4, y: y + 12 + lines.length * LABEL_LINE_H, class: 'kind' }, g).textContent =
          `${l.type}, up to ${holdLanes} held at once`;
      }
      g.addEventListener('click', () => { selected = l.name; picked = true; render(); });
      for (const h of l.holds) {
        if (h.end < from) continue;
        const x0 = h.x0, x1 = h.x1;
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
        if (h.inside) {
          el('text', { x: x0 + 3, y: y + h.lane * HOLD_H + 11, class: 'bar-label', 'data-owner-id': h.ownerId }, g)
            .textContent = h.label;
        }
      }
      for (const o of owners) {
        el('text', {
          x: o.start, y: y + holdLanes * HOLD_H + o.lane * OWNER_LINE_H + 8,
          class: 'bar-label under' + (o.hold.lost ? ' lost' : ''), 'data-owner-id': o.hold.ownerId
        }, g).textContent = o.hold.label;
      }
      const waitTop = y + barsH;
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
      el('text', { x: labelW, y: 44, class: 'empty' }, svg).textContent = recording
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
    });
    el('line', { x1: left, x2: width - left, y1: base, y2: base, class: 'baseline' }, svg);
    drawBucketEdges(svg, left, slot, base);
    const sorted = [...values].sort((a, b) => a - b);
    const pct = p => sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))].toFixed(1) : '–';
    el('text', { x: left, y: height - 4, class: 'axis summary' }, svg).textContent = sorted.length
      ? `ms · n=${sorted.length} · p50 ${pct(0.5)} · p95 ${pct(0.95)} · max ${sorted[sorted.length - 1].toFixed(1)}`
      : 'ms · ' + unitNote;
  }

  // The x axis labels the edges between buckets (0, 1, 2, 5, ... 5s), which are shorter than the
  // buckets' ranges; where the histogram is too narrow for all of them, an edge whose label would
  // touch the one before it keeps its tick and loses its label (the bar's title still gives the range).
  function drawBucketEdges(svg, left, slot, base) {
    const f = ms => ms >= 1000 ? ms / 1000 + 's' : String(ms);
    let lastRight = -Infinity;
    [0, ...BUCKETS].forEach((edge, i) => {
      const ex = left + i * slot;
      el('line', { x1: ex, x2: ex, y1: base, y2: base + 4, class: 'baseline' }, svg);
      const label = el('text', { x: ex, y: base + 15, class: 'axis x-label', 'text-anchor': i ? 'middle' : 'start' }, svg);
      label.textContent = f(edge);
      const box = label.getBBox();
      if (box.x < lastRight + 4) label.remove(); else lastRight = box.x + box.width;
    });
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
