/* The stored runs browser (chapters/explore_runs): every stored run behind the chosen figures, from
 * _static/stored_runs.js (written from data/ when the book is built: emergence_lib.run_index). Pick a figure and
 * filter by T, d, B (or vocabulary and pairs) and seed; sort by the ratio to the paper's law; click a run to see its
 * learning curve with its measured plateau and the law's prediction. */
(function () {
  "use strict";
  const NS = "http://www.w3.org/2000/svg";
  function el(tag, attrs, parent) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  const num = (v, digits = 3) => (v === null || v === undefined ? "—" : typeof v === "number" ? (Math.abs(v) >= 100 ? Math.round(v).toLocaleString("en-US") : v.toPrecision(digits)) : String(v));

  function drawCurve(svg, run) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    // Drawn at the width it is shown at (at least 320 units), so that its text stays 12 px on a phone too.
    const W = Math.round(Math.max(320, Math.min(640, svg.parentElement.clientWidth || 640))), H = 280;
    const L = 46, R = 10, Tp = 22, Bt = 70;
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    const pts = run.curve;
    if (!pts.length) return;
    const recall = run.kind === "transformer_recall";
    const marks = [run.value, run.law].filter((v) => v);
    const ts = pts.map((q) => q[0]).concat(marks);
    const t0 = Math.max(1, Math.min(...ts)), t1 = Math.max(...ts) * 1.1;
    const yMax = recall ? 1 : Math.max(0.55, ...pts.map((q) => q[1]));
    const x = (t) => L + (W - L - R) * (Math.log10(Math.max(t, t0)) - Math.log10(t0)) / (Math.log10(t1) - Math.log10(t0) || 1);
    const y = (v) => H - Bt - (H - Tp - Bt) * Math.min(v, yMax) / yMax;
    el("rect", { x: L, y: Tp, width: W - L - R, height: H - Tp - Bt, fill: "none", stroke: "#bbb" }, svg);
    for (let e = Math.ceil(Math.log10(t0)); e <= Math.floor(Math.log10(t1)); e++) {
      el("line", { x1: x(10 ** e), x2: x(10 ** e), y1: H - Bt, y2: H - Bt + 4, stroke: "#555" }, svg);
      el("text", { x: x(10 ** e), y: H - Bt + 16, "font-size": 12, "text-anchor": "middle" }, svg).textContent = e === 0 ? "1" : `10^${e}`;
    }
    for (const v of [0, yMax / 2, yMax]) el("text", { x: L - 5, y: y(v) + 4, "font-size": 12, "text-anchor": "end" }, svg).textContent = v.toPrecision(2);
    el("text", { x: (L + W - R) / 2, y: H - Bt + 32, "font-size": 12, "text-anchor": "middle" }, svg).textContent = "training step";
    el("text", { x: L, y: 15, "font-size": 12, "font-weight": "bold" }, svg).textContent = `${recall ? "accuracy" : "loss"} on ${run.curve_of.replace(/^(loss|accuracy) /, "")}`;
    const threshold = el("line", { x1: L, x2: W - R, y1: y(run.threshold), y2: y(run.threshold), stroke: "#2ca02c", "stroke-dasharray": "2 3", "stroke-width": 1.5 }, svg);
    threshold.classList.add("runs-threshold");
    if (run.value) el("line", { x1: x(run.value), x2: x(run.value), y1: Tp, y2: H - Bt, stroke: "#1f77b4", "stroke-width": 1.5 }, svg);
    if (run.law) el("line", { x1: x(run.law), x2: x(run.law), y1: Tp, y2: H - Bt, stroke: "#d62728", "stroke-dasharray": "6 4", "stroke-width": 1.5 }, svg);
    el("polyline", { points: pts.map((q) => `${x(q[0]).toFixed(1)},${y(q[1]).toFixed(1)}`).join(" "), fill: "none", stroke: "#333", "stroke-width": 2 }, svg);
    // The legend, under the axis: what each line is, in the run's own terms.
    const items = [["#333", "", "the run's curve"], ["#2ca02c", "2 3", `threshold ${run.threshold}`],
      ["#1f77b4", "", run.value ? `its ${run.measure}` : `${run.measure}: ${run.status}`]];
    if (run.law) items.push(["#d62728", "6 4", "the paper's law"]);
    const legend = el("g", { class: "runs-legend" }, svg);
    const widths = items.map(([, , text]) => 30 + 6.6 * text.length);
    const oneRow = widths.reduce((a, b) => a + b, 0) <= W - L - R;
    let lx = L;
    items.forEach(([color, dash, text], i) => {
      const cx = oneRow ? lx : L + (i % 2) * (W - L - R) / 2, cy = oneRow ? H - 16 : H - 24 + Math.floor(i / 2) * 16;
      el("line", { x1: cx, x2: cx + 20, y1: cy - 4, y2: cy - 4, stroke: color, "stroke-width": 2, "stroke-dasharray": dash }, legend);
      el("text", { x: cx + 24, y: cy, "font-size": 12 }, legend).textContent = text;
      lx += widths[i];
    });
  }

  function setup(root) {
    const data = window.STORED_RUNS;
    if (!data) { root.querySelector(".runs-message").textContent = "No stored runs were found when the book was built."; return; }
    const filters = root.querySelector(".runs-filters"), tbody = root.querySelector("tbody"), info = root.querySelector(".runs-info");
    const svg = root.querySelector("svg"), count = root.querySelector(".runs-count");
    const inFigure = (r, f) => r.figures.includes(data.figures.indexOf(f));
    const state = { figure: data.figures[0], sort: "ratio-desc" };
    const fields = ["T", "d", "B", "p", "V", "pairs", "width", "lr", "seed"];
    const selects = {};
    function mkSelect(name, label) {
      const wrap = document.createElement("label");
      wrap.textContent = `${label} `;
      const s = document.createElement("select");
      s.name = name; s.setAttribute("aria-label", label);
      wrap.appendChild(s); filters.appendChild(wrap); selects[name] = s;
      s.addEventListener("change", () => { state[name] = s.value; if (name === "figure") resetFilters(); render(); });
      return s;
    }
    const fig = mkSelect("figure", "Runs of");
    for (const f of data.figures) {
      const n = data.runs.filter((r) => inFigure(r, f)).length;
      const o = document.createElement("option"); o.value = f; o.textContent = `${f} (${n} runs)`; o.disabled = !n; fig.appendChild(o);
    }
    fig.value = state.figure;
    for (const f of fields) mkSelect(f, f);
    const sort = mkSelect("sort", "sorted by");
    for (const [v, t] of [["ratio-desc", "ours / law, largest first"], ["ratio-asc", "ours / law, smallest first"], ["value-desc", "measured, largest first"], ["point", "T, d, B, seed"]]) {
      const o = document.createElement("option"); o.value = v; o.textContent = t; sort.appendChild(o);
    }

    function resetFilters() {
      const runs = data.runs.filter((r) => inFigure(r, state.figure));
      for (const f of fields) {
        const s = selects[f], values = [...new Set(runs.map((r) => r[f]).filter((v) => v !== null))].sort((a, b) => a - b);
        s.innerHTML = "";
        const all = document.createElement("option"); all.value = ""; all.textContent = "all"; s.appendChild(all);
        for (const v of values) { const o = document.createElement("option"); o.value = String(v); o.textContent = String(v); s.appendChild(o); }
        s.parentElement.style.display = values.length > 1 ? "" : "none";
        state[f] = "";
      }
    }

    function selected() {
      let runs = data.runs.filter((r) => inFigure(r, state.figure) && fields.every((f) => state[f] === "" || String(r[f]) === state[f]));
      // Never emerged: first when largest first. No law at its setting: last either way.
      const key = (r, dir) => (r.law === null ? -Infinity * dir : r.ratio === null ? Infinity : r.ratio);
      const value = (r) => (r.value === null ? Infinity : r.value);
      if (state.sort === "ratio-desc") runs.sort((a, b) => key(b, 1) - key(a, 1));
      else if (state.sort === "ratio-asc") runs.sort((a, b) => key(a, -1) - key(b, -1));
      else if (state.sort === "value-desc") runs.sort((a, b) => value(b) - value(a));
      else runs.sort((a, b) => (a.T - b.T) || (a.d - b.d) || (a.B - b.B) || (a.V - b.V) || (a.pairs - b.pairs) || (a.seed - b.seed));
      return runs;
    }

    function show(run, row) {
      tbody.querySelectorAll("tr").forEach((tr) => tr.classList.remove("selected"));
      if (row) row.classList.add("selected");
      drawCurve(svg, run);
      const law = run.law === null ? "no law of the paper at this setting (its laws are for no cross-sample repetition, read at loss 0.1 or at 5% accuracy)"
        : `the paper's law ${num(run.law, 4)} steps, ours / law ${run.ratio === null ? "—" : num(run.ratio)}`;
      info.innerHTML = `<b>Run</b> <code>data/${run.kind}/${run.key}.json</code> (${run.sweep} sweep): ${run.measure}
        <span class="runs-value" data-value="${run.value}">${run.value === null ? run.status : num(run.value, 4) + " steps"}</span>
        at threshold ${run.threshold}; ${law}.`;
    }

    function render() {
      const runs = selected();
      count.textContent = `${runs.length} runs` + (data.unlisted ? ` (the store holds ${data.unlisted} more Transformer files that no figure reads: probes and runs of earlier code versions, not listed)` : "");
      tbody.innerHTML = "";
      for (const r of runs) {
        const tr = document.createElement("tr");
        tr.dataset.key = r.key;
        const point = r.kind === "transformer_recall" ? `V ${r.V}, pairs ${r.pairs}, B ${r.B}, p ${r.p}` : `T ${r.T}, d ${r.d}, B ${r.B}, p ${r.p}`;
        const cells = [["point", point], ["seed", r.seed], ["width", r.width], ["lr", r.lr],
          ["measured", r.value === null ? r.status : num(r.value, 4)], ["law", r.law === null ? "none here" : num(r.law, 4)],
          ["ours / law", r.ratio === null ? "—" : num(r.ratio)]];
        for (const [name, text] of cells) {
          const td = document.createElement("td"); td.dataset.label = name; td.textContent = String(text); tr.appendChild(td);
        }
        tr.addEventListener("click", () => show(r, tr));
        tbody.appendChild(tr);
      }
      if (runs.length) show(runs[0], tbody.firstChild);
      root.dataset.state = "ready";
    }
    resetFilters();
    render();
    let shown = null;
    root.addEventListener("click", () => { shown = tbody.querySelector("tr.selected"); });
    window.addEventListener("resize", () => { // redrawn at its new width
      const row = shown || tbody.querySelector("tr.selected");
      const run = row && data.runs.find((r) => r.key === row.dataset.key);
      if (run) drawCurve(svg, run);
    });
  }

  function start() { document.querySelectorAll(".runs-browser").forEach(setup); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
