// zl report's page: draws the JSON of the zl-data element with Chart.js (inlined before this
// script). Text goes in through textContent only, never as HTML: op names are data.
(function () {
  'use strict';
  const DATA = JSON.parse(document.getElementById('zl-data').textContent);
  const main = document.getElementById('zl-main');
  // Okabe-Ito: told apart by readers with any common colour-vision deficiency.
  const VERDICT = { faster: '#0072B2', slower: '#D55E00', same: '#999999', ambiguous: '#E69F00', none: '#CCCCCC' };
  const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#000000', '#F0E442'];
  const charts = [];
  const filters = [];
  const pending = new Set();
  window.zlCharts = charts;

  Chart.defaults.animation = false;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.font.size = 11;

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') e.className = v;
      else if (k === 'style') e.style.cssText = v;
      else e.setAttribute(k, v);
    }
    for (const c of children) {
      if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
    }
    return e;
  }
  function num(x, d) { return x === null || x === undefined ? '-' : Number(x).toFixed(d === undefined ? 3 : d); }
  // A change as a signed percent (B vs A: -3.2%), a share as a plain one (noise 4.1%).
  function pct(x) { return x === null || x === undefined ? '-' : `${x > 0 ? '+' : ''}${(100 * x).toFixed(1)}%`; }
  function share(x) { return x === null || x === undefined ? '-' : `${(100 * x).toFixed(1)}%`; }
  function short(s) { return s.length > 60 ? s.slice(0, 57) + '…' : s; }
  function matches(op, q) { return q === '' || op.toLowerCase().includes(q); }

  // A chart drawn when it first comes into view: 700 ops' charts at once would take seconds.
  const observer = 'IntersectionObserver' in window ? new IntersectionObserver((entries) => {
    for (const e of entries) if (e.isIntersecting) draw(e.target);
  }, { rootMargin: '400px' }) : null;
  function draw(box) {
    if (!pending.has(box)) return;
    pending.delete(box);
    if (observer) observer.unobserve(box);
    box.zlDraw();
  }
  function lazy(box, render) {
    box.zlDraw = render;
    pending.add(box);
    if (observer) observer.observe(box); else draw(box);
  }
  window.zlRenderAll = () => { for (const box of [...pending]) draw(box); };
  window.addEventListener('beforeprint', window.zlRenderAll);

  function chart(box, kind, meta, config) {
    const canvas = el('canvas', { role: 'img', 'aria-label': meta.label || kind });
    box.append(canvas);
    const c = new Chart(canvas, config);
    c.$zl = Object.assign({ kind: kind }, meta);
    charts.push(c);
    return c;
  }
  // A bar chart of rows (op first) that the filter box narrows: its bars, and its height with them.
  function filtered(c, b, all, data, barHeight) {
    c.$zl.rows = all;
    filters.push((q) => {
      const rows = all.filter((r) => matches(r[0], q));
      c.$zl.rows = rows;
      c.data = data(rows);
      b.style.height = `${Math.max(140, rows.length * barHeight + 60)}px`;
      c.resize();
      c.update();
    });
  }
  function box(height) { return el('div', { class: 'chart', style: `height:${height}px` }); }

  // Every chart's numbers as a table, collapsed, built when first opened.
  function fallback(title, header, rows) {
    const d = el('details', { class: 'fallback' }, el('summary', {}, `Table: ${title}`));
    d.addEventListener('toggle', () => {
      if (!d.open || d.zlBuilt) return;
      d.zlBuilt = true;
      const t = el('table', {}, el('thead', {}, el('tr', {}, ...header.map((h) => el('th', {}, h)))));
      const body = el('tbody');
      for (const r of rows()) body.append(el('tr', {}, ...r.map((c) => el('td', {}, c))));
      t.append(body);
      d.append(t);
    });
    return d;
  }
  function caliberBlock(c, title) {
    const dl = el('dl', { class: 'caliber' });
    for (const [name, values] of c.fields) {
      dl.append(el('dt', {}, name), el('dd', { class: values.length > 1 ? 'mixed' : '' }, values.join(' | ')));
    }
    return el('div', {}, el('h3', {}, `${title} (${c.runs} run${c.runs === 1 ? '' : 's'})`), dl);
  }
  function banner(cls, text) { return el('p', { class: `banner ${cls}`, role: 'status' }, text); }
  function legend(items) {
    return el('p', { class: 'legend' }, ...items.map(([colour, text]) =>
      el('span', {}, el('span', { class: 'swatch', style: `background:${colour}` }), text)));
  }

  // ---- campaign ----
  function speedupChart(section, groups, dtype) {
    const all = groups.filter((g) => g[1] === dtype && g[4] !== null).sort((a, b) => b[4] - a[4]);
    const b = box(Math.max(140, all.length * 16 + 60));
    section.append(el('h4', {}, `Speedup over torch, ${dtype || 'no dtype'} (geometric mean per op)`), b);
    const data = (rows) => ({
      labels: rows.map((g) => g[0]),
      datasets: [{
        label: 'speedup', data: rows.map((g) => [1, g[4]]), minBarLength: 2, // from 1: below it, slower
        backgroundColor: rows.map((g) => (g[4] >= 1 ? VERDICT.faster : VERDICT.slower)),
      }],
    });
    const c = chart(b, 'speedup', { dtype: dtype, label: `speedup ${dtype}` }, {
      type: 'bar', data: data(all),
      options: {
        indexAxis: 'y', plugins: { legend: { display: false }, tooltip: { callbacks: {
          label: (ctx) => { const g = c.$zl.rows[ctx.dataIndex]; return `×${num(g[4])} (min ${num(g[5])}, max ${num(g[6])}, ${g[2]} rows, ${g[7]} failed)`; },
        } } },
        scales: { y: { ticks: { autoSkip: false, callback(v) { return short(this.getLabelForValue(v)); } } },
          x: { type: 'logarithmic', title: { display: true, text: 'FlagGems speedup over torch (log; above 1: faster)' } } },
      },
    });
    filtered(c, b, all, data, 16);
  }
  // Chart.js has no box plot: a dataset's zlBoxes ([min, q1, median, q3, max, …] per point, or
  // null) are drawn under its points, whiskers from min to max and a box from q1 to q3.
  const boxPlugin = {
    id: 'zlBoxes',
    beforeDatasetsDraw(c) {
      const { ctx, chartArea: a } = c;
      const unit = Math.abs(c.scales.x.getPixelForValue(1) - c.scales.x.getPixelForValue(0));
      ctx.save();
      ctx.beginPath();
      ctx.rect(a.left, a.top, a.right - a.left, a.bottom - a.top);
      ctx.clip();
      c.data.datasets.forEach((ds, d) => {
        if (!ds.zlBoxes || !c.isDatasetVisible(d)) return;
        const w = Math.max(2, Math.min(7, unit * ds.zlWidth * 0.4)); // half the box's width
        Object.assign(ctx, { strokeStyle: ds.borderColor, fillStyle: `${ds.borderColor}33`, lineWidth: 1 });
        c.getDatasetMeta(d).data.forEach(({ x }, k) => {
          if (!ds.zlBoxes[k]) return;
          const [lo, q1, med, q3, hi] = ds.zlBoxes[k].slice(0, 5).map((v) => c.scales.y.getPixelForValue(v));
          ctx.beginPath();
          for (const [x0, y0, x1, y1] of [[x, lo, x, q1], [x, q3, x, hi], [x - w / 2, lo, x + w / 2, lo], [x - w / 2, hi, x + w / 2, hi], [x - w, med, x + w, med]]) {
            ctx.moveTo(x0, y0);
            ctx.lineTo(x1, y1);
          }
          ctx.stroke();
          ctx.fillRect(x - w, q3, 2 * w, q1 - q3);
          ctx.strokeRect(x - w, q3, 2 * w, q1 - q3);
        });
      });
      ctx.restore();
    },
  };
  function elements(n) { return n === null ? 'no element count' : `${n.toLocaleString('en-US')} element${n === 1 ? '' : 's'}`; }
  // [min, q1, median, q3, max, n, noise, warnings] in words.
  function boxText(b) {
    return b ? `${b[5]} samples, median ${num(b[2], 6)} ms, noise ${share(b[6])} (IQR/median)${b[7] ? `, warnings: ${b[7]}` : ''}` : '-';
  }
  // The shapes of every dtype, by element count (each series comes so ordered), those without after.
  function sizeOrder(series) {
    const counts = new Map();
    for (const x of series) x[2].forEach((sh, k) => { if (!counts.has(sh)) counts.set(sh, x[5][k]); });
    const rank = (sh) => (counts.get(sh) === null ? Infinity : counts.get(sh));
    const shapes = [...counts.keys()].sort((p, q) => (rank(p) === rank(q) ? 0 : rank(p) < rank(q) ? -1 : 1));
    return { shapes: shapes, counts: shapes.map((sh) => counts.get(sh)) };
  }
  // Points, not lines: shapes have no order of their own, a line between two would say they do.
  // Each dtype and side sits a little apart within its shape's slot, its samples' box beside it.
  function latencyChart(b, op, series) {
    const { shapes, counts } = sizeOrder(series);
    const sides = series.flatMap((x, i) => [[x, i, 4, 7, 'FlagGems'], [x, i, 3, 6, 'torch']]);
    const width = Math.min(0.2, 0.8 / sides.length);
    let lo = Infinity;
    let hi = 0;
    const datasets = sides.map(([x, i, at, boxes, side], d) => {
      const colour = PALETTE[i % PALETTE.length];
      const offset = (d - (sides.length - 1) / 2) * width;
      const points = [];
      const kept = [];
      x[2].forEach((sh, k) => {
        if (x[at][k] === null) return;
        const box = x[boxes][k];
        points.push({ x: shapes.indexOf(sh) + offset, y: x[at][k], shape: sh, count: x[5][k], box: box });
        kept.push(box);
        for (const v of box ? [box[0], box[4]] : [x[at][k]]) { if (v > 0) { lo = Math.min(lo, v); hi = Math.max(hi, v); } }
      });
      return { label: `${x[1]} ${side}`, data: points, zlBoxes: kept, zlWidth: width, borderColor: colour,
        backgroundColor: side === 'torch' ? '#ffffff' : colour, pointStyle: side === 'torch' ? 'rect' : 'circle',
        pointRadius: 4, pointHitRadius: 8, showLine: false };
    });
    const boxes = datasets.reduce((n, ds) => n + ds.zlBoxes.filter((x) => x).length, 0);
    chart(b, 'latency', { op: op, label: `latency of ${op}`, shapes: shapes, counts: counts, boxes: boxes }, {
      type: 'scatter', data: { labels: shapes, datasets: datasets }, plugins: [boxPlugin],
      options: {
        plugins: { tooltip: { callbacks: {
          title: (items) => { const p = items[0].raw; return `${p.shape}: ${elements(p.count)}`; },
          label: (ctx) => { const p = ctx.raw; return [`${ctx.dataset.label}: ${num(p.y, 6)} ms (median over rounds)`].concat(p.box ? [`samples: ${boxText(p.box)}`] : []); },
        } } },
        scales: {
          x: { type: 'linear', min: -0.5, max: shapes.length - 0.5, grid: { offset: true }, // lines between shapes
            title: { display: true, text: 'Size Detail, by element count' },
            afterBuildTicks: (axis) => { axis.ticks = shapes.map((_, k) => ({ value: k })); },
            ticks: { callback: (v) => (Number.isInteger(v) && shapes[v] !== undefined ? short(shapes[v]) : '') } },
          y: Object.assign({ type: 'logarithmic', title: { display: true, text: 'latency (ms, log)' } },
            hi > 0 ? { suggestedMin: lo / 1.2, suggestedMax: hi * 1.2 } : {}),
        },
      },
    });
  }
  function opSection(op, series) {
    const s = el('section', { class: 'op' }, el('h4', {}, op));
    const b = box(260);
    s.append(b);
    lazy(b, () => latencyChart(b, op, series));
    s.append(fallback(`latency of ${op}`, ['dtype', 'Size Detail', 'elements', 'torch ms', 'FlagGems ms', 'torch samples', 'FlagGems samples'], () =>
      series.flatMap((x) => x[2].map((sh, k) => [x[1], sh, x[5][k] === null ? '-' : x[5][k], num(x[3][k], 6), num(x[4][k], 6), boxText(x[6][k]), boxText(x[7][k])]))));
    filters.push((q) => { s.hidden = !matches(op, q); });
    return s;
  }
  // How far the numbers can be trusted: rows whose samples warn, and how many stopped at a cap.
  function stability(sec, c) {
    const s = c.sampling;
    if (!s || s.rows === 0) return;
    const capped = `${s.capped} of ${s.rows} rows with samples (${share(s.capped / s.rows)})`;
    sec.append(s.capped ? banner('warn', `${capped} stopped sampling at a cap before the median's interval converged: ${s.max_samples} at the most samples, ${s.max_time} at the time limit.`)
      : el('p', { class: 'sampling' }, `${capped} stopped sampling at a cap: every row converged or was timed as asked.`));
    if (c.unstable.length === 0) return;
    sec.append(el('h4', {}, `Unstable measurements: samples that warn (${c.unstable.length})`));
    const list = fallback('unstable measurements', ['op', 'dtype', 'Size Detail', 'side', 'warnings', 'noise (IQR/median)', 'samples', 'stopped', 'where'],
      () => c.unstable.map((u) => [u[0], u[1] || '-', u[2], u[3], u[4], share(u[5]), u[6], u[7], u[8]]));
    list.classList.add('unstable');
    list.open = c.unstable.length <= 50;
    sec.append(list);
  }
  // The device's state over the campaign (telemetry.jsonl): SM clock and temperature on one time
  // axis, each reading that says the device was slowed in red, and the rows timed then.
  function timeline(sec, t) {
    sec.append(el('h4', {}, `Device state over the campaign (${t.readings} readings)`));
    if (t.throttled_rows) {
      sec.append(banner('warn', `${t.throttled_rows} rows were timed while the device was throttled (first: ${t.cause}): zl summary --ab leaves them out of its verdicts.`));
    }
    const at = (k) => t.points.filter((p) => p[k] !== null).map((p) => ({ x: p[0], y: p[k], op: t.ops[p[1]], cause: p[6] }));
    const clock = at(2);
    const temp = at(4);
    if (clock.length === 0 && temp.length === 0) {
      sec.append(el('p', { class: 'sampling' }, 'The backend read neither a clock nor a temperature of this device.'));
    } else {
      const b = box(260);
      sec.append(b);
      lazy(b, () => chart(b, 'timeline', { label: 'device clock and temperature over time', throttled: t.throttled_rows }, {
        type: 'line',
        data: { datasets: [
          { label: 'SM clock (MHz)', yAxisID: 'y', data: clock, borderColor: PALETTE[0], backgroundColor: PALETTE[0], pointRadius: 0, borderWidth: 1 },
          { label: 'temperature (°C)', yAxisID: 'y2', data: temp, borderColor: PALETTE[1], backgroundColor: PALETTE[1], pointRadius: 0, borderWidth: 1 },
          { label: 'throttled', type: 'scatter', yAxisID: clock.length ? 'y' : 'y2', data: (clock.length ? clock : temp).filter((p) => p.cause),
            backgroundColor: '#d62728', borderColor: '#d62728', pointRadius: 3 },
        ] },
        options: {
          plugins: { tooltip: { callbacks: {
            label: (ctx) => [`${ctx.dataset.label}: ${ctx.raw.y} during ${ctx.raw.op}`].concat(ctx.raw.cause ? [ctx.raw.cause] : []),
          } } },
          scales: {
            x: { type: 'linear', title: { display: true, text: 'seconds from the first reading' } },
            y: { title: { display: true, text: 'MHz' } },
            y2: { position: 'right', grid: { drawOnChartArea: false }, title: { display: true, text: '°C' } },
          },
        },
      }));
    }
    const readings = fallback('device readings', ['seconds', 'op', 'SM MHz', 'memory MHz', '°C', 'W', 'throttled'],
      () => t.points.map((p) => [num(p[0], 2), t.ops[p[1]], p[2] === null ? '-' : p[2], p[3] === null ? '-' : p[3],
        p[4] === null ? '-' : p[4], p[5] === null ? '-' : num(p[5], 1), p[6] || '-']));
    readings.classList.add('readings');
    sec.append(readings);
    if (t.throttled.length) {
      const list = fallback('rows timed on a throttled device', ['op', 'dtype', 'Size Detail', 'run'], () => t.throttled);
      list.classList.add('throttled');
      sec.append(list);
    }
  }
  // Ops ranked by headroom: the share of the spec peak each reached (zl summary's %BW and
  // %TFLOPS), the furthest from it first, where the device has a peak and FlagGems a figure.
  function headroom(sec, groups) {
    const reach = (g) => Math.max(g[10] === null ? -1 : g[10], g[11] === null ? -1 : g[11]);
    const ranked = groups.filter((g) => g[10] !== null || g[11] !== null).sort((a, b) => reach(a) - reach(b));
    if (ranked.length === 0) return;
    sec.append(el('h4', {}, `Headroom: ops furthest from the device's spec peak first (${ranked.length})`));
    const t = el('table', { class: 'headroom' }, el('thead', {}, el('tr', {},
      ...['op', 'dtype', '% of peak bandwidth', '% of peak TFLOPS', 'headroom'].map((h) => el('th', {}, h)))));
    const body = el('tbody');
    for (const g of ranked) {
      body.append(el('tr', {}, ...[g[0], g[1] || '-', g[10] === null ? '-' : num(g[10], 1), g[11] === null ? '-' : num(g[11], 1),
        `${num(Math.max(0, 100 - reach(g)), 1)}%`].map((c) => el('td', {}, c))));
    }
    t.append(body);
    sec.append(t);
  }
  function campaign(d) {
    if (d.calibers.length === 0) {
      main.append(banner('warn', `No runs in ${(DATA.paths || []).join(' ') || 'the input'}: nothing was measured, so there is nothing to draw.`));
    }
    if (d.calibers.length > 1) {
      main.append(banner('warn', `These runs are of ${d.calibers.length} different calibers (below): numbers of different calibers do not compare, so each is shown on its own and never summarized together.`));
    }
    d.calibers.forEach((c, ci) => {
      const sec = el('section', { class: 'caliber-group' });
      main.append(sec);
      sec.append(caliberBlock(c.caliber, d.calibers.length > 1 ? `Caliber ${ci + 1} of ${d.calibers.length}` : 'Caliber'));
      const t = c.total;
      sec.append(el('p', {}, `${t[0]} rows, ${t[1]} measured, geometric-mean speedup ${t[2] === null ? 'none' : `×${num(t[2])}`}, ${t[3]} failed, ${t[4]} timed directly (fallback).`));
      const dtypes = [...new Set(c.groups.filter((g) => g[4] !== null).map((g) => g[1]))].sort();
      if (dtypes.length === 0) sec.append(banner('warn', 'No row of this caliber was measured: there are no speedups to chart. What failed is listed below.'));
      for (const dt of dtypes) speedupChart(sec, c.groups, dt);
      sec.append(fallback('speedups', ['op', 'dtype', 'rows', 'speedup', 'min', 'max', 'failed', 'fallback', 'status'],
        () => c.groups.map((g) => [g[0], g[1] || '-', g[2], num(g[4]), num(g[5]), num(g[6]), g[7], g[8], g[9] || '-'])));
      headroom(sec, c.groups);
      stability(sec, c);
      if (c.telemetry) timeline(sec, c.telemetry);
      if (c.issues.length) {
        sec.append(el('h4', {}, `Failures, fallbacks and markers (${c.issues.length})`));
        const list = fallback('failures, fallbacks and markers', ['what', 'op', 'dtype', 'Size Detail', 'detail', 'where'], () => c.issues);
        list.classList.add('issues');
        list.open = c.issues.length <= 50; // a few are read at once; thousands wait to be asked for
        sec.append(list);
        const counts = {};
        for (const i of c.issues) counts[i[0]] = (counts[i[0]] || 0) + 1;
        sec.append(el('ul', { class: 'issues' }, ...Object.entries(counts).map(([k, n]) => el('li', {}, `${k}: ${n}`))));
      }
      const byOp = new Map();
      for (const x of c.series) { if (!byOp.has(x[0])) byOp.set(x[0], []); byOp.get(x[0]).push(x); }
      if (byOp.size) sec.append(el('h4', {}, 'Latency against size, per op'));
      for (const [op, series] of byOp) sec.append(opSection(op, series));
    });
    // Settled (o[3]: unsupported, a dtype the op does not take, and skipped) are FlagGems' answers, not failures.
    const declined = d.ops_status.filter((o) => o[3]);
    const failed = d.ops_status.filter((o) => !declined.includes(o));
    if (declined.length) {
      main.append(el('h3', {}, 'Ops FlagGems declined, not failures (ops_status.csv)'),
        el('ul', { class: 'declined' }, ...declined.map((o) => el('li', { class: 'status-declined' }, `${o[0]}: ${o[1]}`))));
    }
    if (failed.length) {
      main.append(el('h3', {}, 'Ops that did not finish ok (ops_status.csv)'),
        el('ul', { class: 'unfinished' }, ...failed.map((o) => el('li', { class: 'status-bad' }, `${o[0]}: ${o[1]}`))));
    }
    if (DATA.attempts && DATA.attempts.length) {
      main.append(el('p', {}, `Earlier attempts (listed, not counted): ${DATA.attempts.join(', ')}`));
    }
  }

  // ---- A/B ----
  // The axis around the ranges and 1, so that a change of a few percent is seen.
  function around(rows) {
    let lo = 1;
    let hi = 1;
    for (const o of rows) { lo = Math.min(lo, o[3]); hi = Math.max(hi, o[4]); }
    return { min: lo / 1.1, max: hi * 1.1 };
  }
  function ab(d) {
    const cols = el('div', { class: 'sides' });
    d.a_calibers.forEach((c, i) => cols.append(caliberBlock(c, `A: ${d.a}${d.a_calibers.length > 1 ? ` (caliber ${i + 1})` : ''}`)));
    d.b_calibers.forEach((c, i) => cols.append(caliberBlock(c, `B: ${d.b}${d.b_calibers.length > 1 ? ` (caliber ${i + 1})` : ''}`)));
    if (d.caliber_differences.length) {
      main.append(banner('refused', `The two sides differ in caliber (compared anyway with --force): ${d.caliber_differences.map((x) => `${x[0]}: A=${x[1]} B=${x[2]}`).join('; ')}. Numbers of different calibers do not compare.`));
    }
    main.append(cols);
    main.append(el('p', {}, `B/A: FlagGems latency of B over A, geometric mean per op with its range; below 1: B is faster. ${d.rounds_a} and ${d.rounds_b} rounds; ${d.unpaired} unpaired, ${d.failed} failed keys.`));
    if (!d.tested) main.append(banner('warn', `Too few rounds for the U test (the smallest p-value they can reach is ${num(d.min_p)}): no verdicts, every op is grey.`));
    main.append(legend(Object.entries(VERDICT).map(([v, colour]) => [colour, v])));
    const all = d.ops.filter((o) => o[2] !== null);
    const b = box(Math.max(140, all.length * 18 + 60));
    main.append(b);
    const data = (rows) => ({
      labels: rows.map((o) => o[0]),
      datasets: [
        { label: 'B/A geomean', data: rows.map((o) => [1, o[2]]), backgroundColor: rows.map((o) => VERDICT[o[6]]), grouped: false, minBarLength: 3 },
        { label: 'range', data: rows.map((o) => [o[3], o[4]]), backgroundColor: rows.map((o) => VERDICT[o[6]] + '55'), grouped: false, barPercentage: 0.35 },
      ],
    });
    const c = chart(b, 'ab', { label: 'B/A per op' }, {
      type: 'bar', data: data(all),
      options: { indexAxis: 'y', plugins: { legend: { display: false }, tooltip: { callbacks: {
        label: (ctx) => { const o = c.$zl.rows[ctx.dataIndex]; return `B/A ${num(o[2])} (${num(o[3])}–${num(o[4])}), ${o[1]} pairs, verdict ${o[6]}: ${o[7]} faster, ${o[8]} slower, ${o[9]} same, ${o[10]} ambiguous`; },
      } } },
      scales: { y: { ticks: { autoSkip: false, callback(v) { return short(this.getLabelForValue(v)); } } },
        x: Object.assign({ type: 'linear', title: { display: true, text: 'B/A (below 1: B faster)' } }, around(all)) } },
    });
    filtered(c, b, all, data, 18);
    main.append(fallback('B/A per op', ['op', 'pairs', 'B/A', 'min', 'max', 'fallback pairs', 'verdict', 'faster', 'slower', 'same', 'ambiguous'],
      () => d.ops.map((o) => [o[0], o[1], num(o[2]), num(o[3]), num(o[4]), o[5], o[6], o[7], o[8], o[9], o[10]])));
    main.append(el('h4', {}, 'B/A per size, per op (each pairing coloured by its own verdict)'));
    const byOp = new Map();
    for (const p of d.pairings) { if (!byOp.has(p[0])) byOp.set(p[0], []); byOp.get(p[0]).push(p); }
    for (const [index, pairs] of byOp) main.append(abOpSection(d.ops[index][0], pairs));
  }
  // Per size: the bar from 1 to B/A in its verdict's colour, and, where both sides kept samples,
  // the 95% interval of B/A over it as a thin dark bar (a forest plot: an interval across 1 is no change).
  function abOpSection(op, pairs) {
    const s = el('section', { class: 'op' }, el('h4', {}, op));
    const b = box(Math.max(120, pairs.length * 16 + 60));
    s.append(b);
    const estimate = (p) => (p[8] === null ? p[5] : 1 + p[8]);
    const interval = (p) => (p[8] === null ? null : [1 + p[9], 1 + p[10]]);
    const words = (p) => `${p[8] === null ? '' : `B vs A ${pct(p[8])} [${pct(p[9])}, ${pct(p[10])}], `}${p[6]}, p ${num(p[7], 4)}${p[11] === null ? '' : `, q ${num(p[11], 4)}`}`;
    lazy(b, () => {
      const intervals = pairs.map(interval);
      chart(b, 'ab-pairs', { op: op, verdicts: pairs.map((p) => p[6]), intervals: intervals.filter((x) => x).length, label: `B/A per size of ${op}` }, {
        type: 'bar',
        data: { labels: pairs.map((p) => `${p[1]} ${p[2]}`),
          datasets: [
            { label: 'B/A', data: pairs.map((p) => [1, estimate(p)]), backgroundColor: pairs.map((p) => VERDICT[p[6]]), grouped: false, minBarLength: 3 },
            { label: '95% interval', data: intervals, backgroundColor: '#222222', grouped: false, barPercentage: 0.2, minBarLength: 2, order: -1 }, // on top
          ] },
        options: { indexAxis: 'y', plugins: { legend: { display: false }, tooltip: { callbacks: {
          label: (ctx) => { const p = pairs[ctx.dataIndex]; return `B/A ${num(estimate(p))} (A ${num(p[3], 6)} ms, B ${num(p[4], 6)} ms), ${words(p)}`; },
        } } },
        scales: { y: { ticks: { autoSkip: false, callback(v) { return short(this.getLabelForValue(v)); } } },
          x: Object.assign({ type: 'linear', title: { display: true, text: 'B/A (below 1: B faster; dark: 95% interval)' } },
            around(pairs.map((p) => { const i = interval(p) || [estimate(p), estimate(p)]; return [0, 0, 0, Math.min(i[0], estimate(p)), Math.max(i[1], estimate(p))]; }))) } },
      });
    });
    s.append(fallback(`B/A per size of ${op}`, ['dtype', 'Size Detail', 'A ms', 'B ms', 'B/A', 'B vs A', '95% interval', 'verdict', 'p', 'q'],
      () => pairs.map((p) => [p[1], p[2], num(p[3], 6), num(p[4], 6), num(p[5]), pct(p[8]), p[8] === null ? '-' : `[${pct(p[9])}, ${pct(p[10])}]`, p[6], num(p[7], 4), num(p[11], 4)])));
    filters.push((q) => { s.hidden = !matches(op, q); });
    return s;
  }

  // ---- history ----
  function history(d) {
    if (d.calibers.length === 0) {
      main.append(banner('warn', 'The store holds no runs: there is no history to draw. zl batch writes a store as it goes (results.sqlite); zl summary --db FILE ingests folders into one.'));
    }
    main.append(legend([[VERDICT.slower, 'a level change to slower (triangle up) where zl history finds one (docs/statistics.md, "Change points in a history"): hollow while it is tentative, not yet held four campaigns'],
      [VERDICT.faster, 'a level change to faster (triangle down)']]));
    d.calibers.forEach((c, ci) => {
      const sec = el('section', { class: 'caliber-group' });
      main.append(sec);
      sec.append(caliberBlock(c.caliber, `Caliber ${ci + 1} of ${d.calibers.length}`));
      const n = c.campaigns.length;
      sec.append(el('p', {}, `The last ${n} of ${c.campaigns_in_store} campaign${c.campaigns_in_store === 1 ? '' : 's'} of this caliber; a campaign of another caliber is drawn in its own section, never on these lines.`));
      if (c.before) sec.append(el('p', { class: 'before' }, `Level changes are found over these campaigns and up to four before them; the one just before #1 in the store: ${c.before[0]}${c.before[1] ? ` (started ${c.before[1]})` : ''}.`));
      sec.append(el('ol', { class: 'campaigns' }, ...c.campaigns.map((x) => el('li', {}, `${x[0]} ${x[1] ? `(started ${x[1]})` : ''}`))));
      const labels = c.campaigns.map((x, i) => `#${i + 1}${x[1] ? ' ' + x[1].slice(0, 10) : ''}`);
      for (const [op, dtype, lines] of c.charts) {
        const s = el('section', { class: 'op' }, el('h4', {}, `${op} ${dtype}`));
        const b = box(260);
        s.append(b);
        lazy(b, () => {
          chart(b, 'history', { op: op, dtype: dtype, sizes: lines.length, label: `history of ${op} ${dtype}` }, {
            type: 'line',
            data: { labels: labels, datasets: lines.map((l, i) => {
              const colour = PALETTE[i % PALETTE.length];
              const at = new Map(l[2].map((c) => [c[0], c]));
              const mark = (k, yes, no) => (at.has(k) ? yes(at.get(k)) : no);
              // Past eight sizes the colours repeat: dashes tell those lines apart.
              return { label: short(l[0]), data: l[1], borderColor: colour, backgroundColor: colour,
                borderDash: i >= PALETTE.length ? [6, 3] : [],
                pointRadius: l[1].map((_, k) => mark(k, () => 8, 3)),
                pointStyle: l[1].map((_, k) => mark(k, () => 'triangle', 'circle')),
                pointRotation: l[1].map((_, k) => mark(k, (c) => (c[1] === 'faster' ? 180 : 0), 0)),
                pointBorderColor: l[1].map((_, k) => mark(k, (c) => VERDICT[c[1]], colour)),
                pointBackgroundColor: l[1].map((_, k) => mark(k, (c) => (c[3] ? VERDICT[c[1]] : 'white'), colour)) };
            }) },
            // Log: one op's sizes span decades of latency; a linear axis flattens all but the largest.
            options: { scales: { y: { type: 'logarithmic', title: { display: true, text: 'FlagGems latency (ms, log)' } } } },
          });
        });
        const changeText = (c) => `${labels[c[0]]} ${c[2] >= 0 ? '+' : ''}${(c[2] * 100).toFixed(1)}% ${c[1]}${c[3] ? '' : ' (tentative)'}: ${c[4]}`;
        s.append(fallback(`history of ${op} ${dtype}`, ['Size Detail', ...labels, 'level changes'],
          () => lines.map((l) => [l[0], ...l[1].map((v) => num(v, 6)), l[2].map(changeText).join('; ')])));
        filters.push((q) => { s.hidden = !matches(op, q); });
        sec.append(s);
      }
    });
  }

  // ---- the page ----
  document.title = DATA.title;
  const input = el('input', { id: 'zl-filter', type: 'search', placeholder: 'filter ops (substring)', 'aria-label': 'filter ops' });
  main.append(el('header', {}, el('h1', {}, DATA.title), el('p', { class: 'meta' }, `zl ${DATA.zl_version}, ${DATA.view} view`),
    el('p', { class: 'controls' }, input)));
  if (DATA.labels_shortened > 0) {
    main.append(banner('warn', 'Labels longer than 512 bytes (op names, Size Details, …) are shortened on this page, and messages longer than 64 KiB; each shows its full length.'));
  }
  ({ campaign: campaign, ab: ab, history: history })[DATA.view](DATA[DATA.view]);
  let timer = null;
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const q = input.value.trim().toLowerCase();
      for (const f of filters) f(q);
      document.body.dataset.filter = q;
    }, 120);
  });
  requestAnimationFrame(() => {
    // Ready means every chart in view is drawn, those the observer would draw next included.
    for (const b of [...pending]) {
      const r = b.getBoundingClientRect();
      if (r.bottom > 0 && r.top < window.innerHeight) draw(b);
    }
    window.zlReadyMs = performance.now();
    window.zlReady = true;
    document.body.dataset.zlReady = '1';
  });
})();
