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
    const W = 640, H = 260, L = 56, R = 12, Tp = 26, Bt = 40;
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    const pts = run.curve;
    if (!pts.length) return;
    const recall = run.kind === "transformer_recall";
    const ts = pts.map((q) => q[0]).concat([run.law, run.value || pts[pts.length - 1][0]]);
    const t0 = Math.max(1, Math.min(...ts)), t1 = Math.max(...ts) * 1.1;
    const yMax = recall ? 1 : Math.max(0.55, ...pts.map((q) => q[1]));
    const x = (t) => L + (W - L - R) * (Math.log10(Math.max(t, t0)) - Math.log10(t0)) / (Math.log10(t1) - Math.log10(t0) || 1);
    const y = (v) => H - Bt - (H - Tp - Bt) * Math.min(v, yMax) / yMax;
    el("rect", { x: L, y: Tp, width: W - L - R, height: H - Tp - Bt, fill: "none", stroke: "#bbb" }, svg);
    for (let e = Math.ceil(Math.log10(t0)); e <= Math.floor(Math.log10(t1)); e++) {
      el("line", { x1: x(10 ** e), x2: x(10 ** e), y1: H - Bt, y2: H - Bt + 4, stroke: "#555" }, svg);
      el("text", { x: x(10 ** e), y: H - Bt + 16, "font-size": 12, "text-anchor": "middle" }, svg).textContent = e === 0 ? "1" : `10^${e}`;
    }
    for (const v of [0, yMax / 2, yMax]) el("text", { x: L - 6, y: y(v) + 4, "font-size": 12, "text-anchor": "end" }, svg).textContent = v.toPrecision(2);
    el("text", { x: (L + W - R) / 2, y: H - 6, "font-size": 12, "text-anchor": "middle" }, svg).textContent = "training step";
    el("text", { x: L, y: 16, "font-size": 13, "font-weight": "bold" }, svg).textContent =
      `${run.curve_of.replace(/_/g, " ")}: ${run.measure} (solid) and the paper's law (dashed)`;
    if (run.value) el("line", { x1: x(run.value), x2: x(run.value), y1: Tp, y2: H - Bt, stroke: "#1f77b4", "stroke-width": 1.5 }, svg);
    el("line", { x1: x(run.law), x2: x(run.law), y1: Tp, y2: H - Bt, stroke: "#d62728", "stroke-dasharray": "6 4", "stroke-width": 1.5 }, svg);
    el("polyline", { points: pts.map((q) => `${x(q[0]).toFixed(1)},${y(q[1]).toFixed(1)}`).join(" "), fill: "none", stroke: "#333", "stroke-width": 2 }, svg);
  }

  function setup(root) {
    const data = window.STORED_RUNS;
    if (!data) { root.querySelector(".runs-message").textContent = "No stored runs were found when the book was built."; return; }
    const filters = root.querySelector(".runs-filters"), tbody = root.querySelector("tbody"), info = root.querySelector(".runs-info");
    const svg = root.querySelector("svg"), count = root.querySelector(".runs-count");
    const state = { figure: data.figures.find((f) => data.runs.some((r) => r.figure === f)) || data.figures[0], sort: "ratio-desc" };
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
      const n = data.runs.filter((r) => r.figure === f).length;
      const o = document.createElement("option"); o.value = f; o.textContent = `${f} (${n} runs)`; o.disabled = !n; fig.appendChild(o);
    }
    fig.value = state.figure;
    for (const f of fields) mkSelect(f, f);
    const sort = mkSelect("sort", "sorted by");
    for (const [v, t] of [["ratio-desc", "ours / law, largest first"], ["ratio-asc", "ours / law, smallest first"], ["point", "T, d, B, seed"]]) {
      const o = document.createElement("option"); o.value = v; o.textContent = t; sort.appendChild(o);
    }

    function resetFilters() {
      const runs = data.runs.filter((r) => r.figure === state.figure);
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
      let runs = data.runs.filter((r) => r.figure === state.figure && fields.every((f) => state[f] === "" || String(r[f]) === state[f]));
      const key = (r) => (r.ratio === null ? Infinity : r.ratio); // never emerged: first when largest first
      if (state.sort === "ratio-desc") runs.sort((a, b) => key(b) - key(a));
      else if (state.sort === "ratio-asc") runs.sort((a, b) => key(a) - key(b));
      else runs.sort((a, b) => (a.T - b.T) || (a.d - b.d) || (a.B - b.B) || (a.V - b.V) || (a.pairs - b.pairs) || (a.seed - b.seed));
      return runs;
    }

    function show(run, row) {
      tbody.querySelectorAll("tr").forEach((tr) => tr.classList.remove("selected"));
      if (row) row.classList.add("selected");
      drawCurve(svg, run);
      info.innerHTML = `<b>Run</b> <code>data/${run.kind}/${run.key}.json</code> (${run.sweep} sweep): ${run.measure}
        <span class="runs-value" data-value="${run.value}">${run.value === null ? "not reached (" + run.status + ")" : num(run.value, 4)}</span> steps,
        the paper's law ${num(run.law, 4)}, ours / law ${num(run.ratio)}.`;
    }

    function render() {
      const runs = selected();
      count.textContent = `${runs.length} runs`;
      tbody.innerHTML = "";
      for (const r of runs) {
        const tr = document.createElement("tr");
        tr.dataset.key = r.key;
        const point = r.kind === "transformer_recall" ? `V ${r.V}, pairs ${r.pairs}, B ${r.B}, p ${r.p}` : `T ${r.T}, d ${r.d}, B ${r.B}, p ${r.p}`;
        tr.innerHTML = `<td>${point}</td><td>${r.seed}</td><td>${r.width}</td><td>${r.lr}</td><td>${r.value === null ? "not reached" : num(r.value, 4)}</td><td>${num(r.law, 4)}</td><td>${num(r.ratio)}</td>`;
        tr.addEventListener("click", () => show(r, tr));
        tbody.appendChild(tr);
      }
      if (runs.length) show(runs[0], tbody.firstChild);
      root.dataset.state = "ready";
    }
    resetFilters();
    render();
  }

  function start() { document.querySelectorAll(".runs-browser").forEach(setup); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
