/* The toy model's reduced dynamics in the page (chapters/explore_toy): no kernel, no server, no network.
 *
 * The same equations as emergence_lib.toy (Eqs. 12-14, B copies of the relevant token) and
 * emergence_lib.toy_cross_sample (Eqs. 17-21, the 3-D flow of App. A.4: the relevant token is x~ = e1 with
 * probability p), integrated from 0 by Dormand-Prince 5(4) with adaptive steps, in physical time (steps x lr).
 * The plateau is the first time the test loss reaches 0.1 (without repetition when p > 0), located inside the step
 * that crosses it by bisection on re-integrations from the state before it, as emergence_lib refines it.
 * The browser tier checks the plateau shown here against emergence_lib at six points (tests/test_book_in_browser.py).
 */
(function () {
  "use strict";
  const THRESHOLD = 0.1;

  // ---- the flows -------------------------------------------------------------------------------------------
  function attention(da, T, B) { return 1 / ((T - B) * Math.exp(-da) + B); }

  // In-context repetition: state [w, da].
  function inContext(T, d, B) {
    const sd = Math.sqrt(d);
    return {
      dim: 2,
      rhs(y) {
        const w = y[0], a = attention(y[1], T, B), n = 1 / (d * (T - B));
        const gw = (1 - B * a) ** 2 * w * n + B * a * (B * a * w - sd) / d;
        const gda = a * (1 - B * a) * (-B * (1 - B * a) * w * w * n + B * w * (B * a * w - sd) / d);
        return [-gw, -gda];
      },
      loss(y) {
        const w = y[0], a = attention(y[1], T, B);
        return 0.5 * ((1 - B * a) ** 2 * w * w / (d * (T - B)) + (B * a * w - sd) ** 2 / d);
      },
      w: (y) => y[0], alpha: (y) => attention(y[1], T, B), wOpt: sd, alphaOpt: 1 / B,
    };
  }

  // Cross-sample repetition (B = 1): state [w~, w, da]; the loss shown is the test loss (p = 0).
  function crossSample(T, d, p) {
    const st = p + (1 - p) / d, s = (1 - p) / d, sq = Math.sqrt(d - 1), n = 1 / (d * (T - 1));
    const lossAt = (y, pp) => {
      const a = attention(y[2], T, 1), stp = pp + (1 - pp) / d, sp = (1 - pp) / d;
      return 0.5 * ((1 - a) ** 2 * (y[1] * y[1] + y[0] * y[0]) * n + stp * (a * y[0] - 1) ** 2 + sp * (a * y[1] - sq) ** 2);
    };
    return {
      dim: 3,
      rhs(y) {
        const wt = y[0], w = y[1], a = attention(y[2], T, 1);
        const gwt = (1 - a) ** 2 * wt * n + a * st * (a * wt - 1);
        const gw = (1 - a) ** 2 * w * n + a * s * (a * w - sq);
        const gda = a * (1 - a) * (-(1 - a) * (w * w + wt * wt) * n + wt * st * (a * wt - 1) + w * s * (a * w - sq));
        return [-gwt, -gw, -gda];
      },
      loss: (y) => lossAt(y, 0), trainLoss: (y) => lossAt(y, p),
      w: (y) => y[1], alpha: (y) => attention(y[2], T, 1), wOpt: sq, alphaOpt: 1,
    };
  }

  // ---- Dormand-Prince 5(4) ------------------------------------------------------------------------------------
  const A = [[], [1 / 5], [3 / 40, 9 / 40], [44 / 45, -56 / 15, 32 / 9],
    [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
    [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
    [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]];
  const B5 = [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0];
  const B4 = [5179 / 57600, 0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40];

  function dpStep(f, y, h) {
    const k = [];
    for (let i = 0; i < 7; i++) {
      const yi = y.map((v, j) => v + h * A[i].reduce((acc, aij, m) => acc + aij * k[m][j], 0));
      k.push(f(yi));
    }
    const y5 = y.map((v, j) => v + h * B5.reduce((acc, b, m) => acc + b * k[m][j], 0));
    const y4 = y.map((v, j) => v + h * B4.reduce((acc, b, m) => acc + b * k[m][j], 0));
    return [y5, y4];
  }

  function advance(f, y, dt, rtol) { // integrate exactly dt (adaptive substeps)
    let t = 0, h = dt / 8;
    while (t < dt) {
      h = Math.min(h, dt - t);
      const [y5, y4] = dpStep(f, y, h);
      let err = 0;
      for (let j = 0; j < y.length; j++) err = Math.max(err, Math.abs(y5[j] - y4[j]) / (1e-12 + rtol * Math.max(Math.abs(y[j]), Math.abs(y5[j]))));
      if (err <= 1) { t += h; y = y5; }
      h *= Math.min(5, Math.max(0.2, 0.9 * Math.pow(err || 1e-10, -0.2)));
    }
    return y;
  }

  function simulate(model, tMax, rtol = 1e-9) {
    const f = model.rhs;
    let y = new Array(model.dim).fill(0), t = 0, h = 1e-3;
    const rec = [{ t: 0, y: y.slice(), loss: model.loss(y) }];
    let plateau = Infinity, steps = 0;
    while (t < tMax && steps < 200000) {
      h = Math.min(h, tMax - t, Math.max(t, 1) * 0.05); // at most 5% of the time so far: the record stays dense in log time
      const [y5, y4] = dpStep(f, y, h);
      let err = 0;
      for (let j = 0; j < y.length; j++) err = Math.max(err, Math.abs(y5[j] - y4[j]) / (1e-12 + rtol * Math.max(Math.abs(y[j]), Math.abs(y5[j]))));
      steps++;
      if (err <= 1) {
        const l0 = model.loss(y), l1 = model.loss(y5);
        if (!isFinite(plateau) && l1 <= THRESHOLD) plateau = t + locate(model, y, h, l0, rtol);
        t += h; y = y5;
        rec.push({ t, y: y.slice(), loss: l1 });
        if (isFinite(plateau) && (l1 < THRESHOLD / 20 || t > 4 * plateau)) break;
      }
      h *= Math.min(5, Math.max(0.2, 0.9 * Math.pow(err || 1e-10, -0.2)));
    }
    return { rec, plateau };
  }

  function locate(model, y0, h, l0, rtol) { // time within [0, h] from y0 at which the loss reaches the threshold
    let lo = 0, hi = h, ylo = y0;
    for (let i = 0; i < 40 && hi - lo > 1e-12 * Math.max(1, h); i++) {
      const mid = 0.5 * (lo + hi), ym = advance(model.rhs, ylo, mid - lo, rtol);
      if (model.loss(ym) <= THRESHOLD) { hi = mid; } else { lo = mid; ylo = ym; }
    }
    return 0.5 * (lo + hi);
  }

  // ---- what the paper predicts ----------------------------------------------------------------------------------
  function predictions(T, d, B, p) {
    const f = Math.sqrt(p * p * d + (1 - p) ** 2);
    const lam = (p > 0 ? f : B) / (Math.sqrt(d) * T);
    return {
      escape: Math.asinh(0.8 / lam) / (2 * lam), // Eq. 6, eps = 0.8
      law: p > 0 ? 2.15 * Math.pow(Math.sqrt(d) * T / f, 1.02) : 1.51 * Math.pow(T / B, 0.99) * Math.pow(d, 0.49),
      lawText: p > 0 ? "2.15 (√d T / f(p, d))^1.02" : "1.51 (T/B)^0.99 d^0.49",
    };
  }

  // ---- plots (SVG, no library) ----------------------------------------------------------------------------------
  const NS = "http://www.w3.org/2000/svg";
  function el(tag, attrs, parent) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function fmt(v) {
    if (!isFinite(v)) return "not reached";
    if (v >= 1e4) return Math.round(v).toLocaleString("en-US");
    return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toPrecision(3);
  }

  function plot(svg, { series, yMax, yLabel, dashed, vline, title }) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const W = 360, H = 220, L = 52, R = 10, Tp = 24, Bt = 40;
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    // Linear time, as the paper's Figure 1: the plateau then the drop. The axis ends at 1.5x the plateau.
    const all = series.flatMap((s) => s.points);
    const t1 = isFinite(vline) ? 1.5 * vline : all[all.length - 1][0];
    const x = (t) => L + (W - L - R) * Math.min(t, t1) / t1;
    const y = (v) => H - Bt - (H - Tp - Bt) * Math.min(v, yMax * 1.05) / (yMax * 1.05);
    el("rect", { x: L, y: Tp, width: W - L - R, height: H - Tp - Bt, fill: "none", stroke: "#bbb" }, svg);
    const raw = t1 / 4, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((v) => v >= raw);
    for (let v = 0; v <= t1 + 1e-9; v += step) {
      el("line", { x1: x(v), x2: x(v), y1: H - Bt, y2: H - Bt + 4, stroke: "#555" }, svg);
      const tx = el("text", { x: x(v), y: H - Bt + 16, "font-size": 11, "text-anchor": "middle" }, svg);
      tx.textContent = v.toLocaleString("en-US", { maximumSignificantDigits: 3 });
    }
    for (const v of [0, yMax / 2, yMax]) {
      const ty = el("text", { x: L - 6, y: y(v) + 4, "font-size": 11, "text-anchor": "end" }, svg);
      ty.textContent = v.toPrecision(2).replace(/\.0+$/, "");
    }
    const xl = el("text", { x: (L + W - R) / 2, y: H - 6, "font-size": 11, "text-anchor": "middle" }, svg);
    xl.textContent = "time (steps × learning rate)";
    const yl = el("text", { x: 12, y: (Tp + H - Bt) / 2, "font-size": 11, "text-anchor": "middle", transform: `rotate(-90 12 ${(Tp + H - Bt) / 2})` }, svg);
    yl.textContent = yLabel;
    const tt = el("text", { x: L, y: 15, "font-size": 12, "font-weight": "bold" }, svg);
    tt.textContent = title;
    for (const dsh of dashed || []) el("line", { x1: L, x2: W - R, y1: y(dsh.v), y2: y(dsh.v), stroke: dsh.color, "stroke-dasharray": "5 4" }, svg);
    if (vline && isFinite(vline)) el("line", { x1: x(vline), x2: x(vline), y1: Tp, y2: H - Bt, stroke: "#999", "stroke-dasharray": "2 3" }, svg);
    for (const s of series) {
      const pts = s.points.filter((q) => q[0] <= t1 * 1.01).map((q) => `${x(q[0]).toFixed(1)},${y(q[1]).toFixed(1)}`).join(" ");
      el("polyline", { points: pts, fill: "none", stroke: s.color, "stroke-width": 2 }, svg);
    }
  }

  // ---- the page -------------------------------------------------------------------------------------------------
  // What the page accepts, exactly: [lowest, highest, default]. The sliders span the same ranges as the boxes.
  const PARAMS = { d: [2, 1024, 32], T: [2, 16384, 256], B: [1, 64, 1], p: [0, 0.99, 0] };
  const RULES = {
    d: "d: an integer from 2 to 1024", T: "T: an integer from 2 to 16384",
    B: "B: an integer from 1 to 64, below T", p: "p: a number from 0 to 0.99",
  };

  function setup(root) {
    const state = {}, typed = {}, notes = [];
    const q = new URLSearchParams(window.location.search);
    for (const k in PARAMS) {
      const raw = q.get(k);
      const v = raw === null || raw.trim() === "" ? NaN : Number(raw);
      if (raw !== null && !isFinite(v)) notes.push(`${k}=${raw} in the address is not a number: ${k} = ${PARAMS[k][2]} (the default) is shown`);
      state[k] = isFinite(v) ? v : PARAMS[k][2];
    }
    const controls = root.querySelector(".toy-controls");
    const sliders = {}, boxes = {};
    for (const k of ["d", "T", "B", "p"]) {
      const [lo, hi] = PARAMS[k];
      const row = document.createElement("label");
      row.className = "toy-control";
      const log = k !== "p";
      row.innerHTML = `<span class="toy-name">${k}</span>`;
      const slider = document.createElement("input");
      slider.type = "range"; slider.min = 0; slider.max = 1000; slider.step = 1; slider.setAttribute("aria-label", `${k} (slider)`);
      // A text box, not type=number: a browser blanks a number box holding typed letters, and the page could not say
      // what was typed. Here it keeps the text and names it.
      const box = document.createElement("input");
      box.type = "text"; box.inputMode = "decimal"; box.id = `toy-${k}`; box.setAttribute("aria-label", k);
      box.dataset.min = lo; box.dataset.max = hi;
      const toSlider = (v) => Math.round(1000 * (log ? Math.log(v / lo) / Math.log(hi / lo) : (v - lo) / (hi - lo)));
      const fromSlider = (s) => (log ? Math.round(lo * Math.pow(hi / lo, s / 1000)) : Math.round(100 * (lo + (hi - lo) * s / 1000)) / 100);
      slider.value = toSlider(Math.min(hi, Math.max(lo, state[k]))); box.value = state[k];
      slider.addEventListener("input", () => { state[k] = fromSlider(+slider.value); typed[k] = null; box.value = state[k]; update(); });
      box.addEventListener("change", () => {
        const text = box.value.trim(), v = text === "" ? NaN : Number(text);
        typed[k] = isFinite(v) ? null : box.value;
        state[k] = v;
        if (isFinite(v)) slider.value = toSlider(Math.min(hi, Math.max(lo, v)));
        update();
      });
      sliders[k] = slider; boxes[k] = box;
      row.appendChild(slider); row.appendChild(box); controls.appendChild(row);
    }
    const out = root.querySelector(".toy-readout"), msg = root.querySelector(".toy-message");
    const svgs = root.querySelectorAll("svg");

    function valid() {
      const { d, T, B, p } = state, errors = [];
      const word = (k) => typed[k] !== null && typed[k] !== undefined;
      for (const k of ["d", "T", "B", "p"]) if (word(k)) errors.push(`${k}: "${typed[k]}" is not a number (${RULES[k].slice(3)})`);
      if (!word("d") && !(Number.isInteger(d) && d >= 2 && d <= 1024)) errors.push(RULES.d);
      if (!word("T") && !(Number.isInteger(T) && T >= 2 && T <= 16384)) errors.push(RULES.T);
      if (!word("B") && !(Number.isInteger(B) && B >= 1 && B <= 64 && (!Number.isInteger(T) || B < T))) errors.push(RULES.B);
      if (!word("p") && !(p >= 0 && p <= 0.99)) errors.push(RULES.p);
      if (p > 0 && B !== 1) errors.push("p > 0 needs B = 1 (the paper's App. A.4 treats one kind of repetition at a time)");
      return [...new Set(errors)];
    }

    function clear() { // nothing stale beside an error: the readout and the plots empty, the address without the bad value
      out.innerHTML = "";
      svgs.forEach((svg) => { while (svg.firstChild) svg.removeChild(svg.firstChild); });
      window.history.replaceState(null, "", window.location.pathname);
    }

    function update() {
      const errors = valid();
      msg.textContent = errors.length ? `Not computed. ${errors.join("; ")}.` : notes.splice(0).join(". ");
      root.dataset.state = errors.length ? "invalid" : "computing";
      if (errors.length) { clear(); return; }
      const { d, T, B, p } = state;
      window.history.replaceState(null, "", `?d=${d}&T=${T}&B=${B}&p=${p}`);
      const model = p > 0 ? crossSample(T, d, p) : inContext(T, d, B);
      const pred = predictions(T, d, B, p);
      const run = simulate(model, 40 * pred.escape);
      const pts = (g) => run.rec.map((r) => [r.t, g(r)]);
      const loss = [{ points: pts((r) => r.loss), color: "#1f77b4" }];
      if (p > 0) loss.push({ points: pts((r) => model.trainLoss(r.y)), color: "#ff7f0e" });
      plot(svgs[0], { series: loss, yMax: 0.5, yLabel: "loss", title: p > 0 ? "Test loss (blue), training loss (orange)" : "Loss", dashed: [{ v: THRESHOLD, color: "#999" }], vline: run.plateau });
      plot(svgs[1], { series: [{ points: pts((r) => model.w(r.y)), color: "#2ca02c" }], yMax: model.wOpt * 1.15, yLabel: "w", title: "w(t); its optimum dashed", dashed: [{ v: model.wOpt, color: "#2ca02c" }], vline: run.plateau });
      plot(svgs[2], { series: [{ points: pts((r) => model.alpha(r.y)), color: "#d62728" }], yMax: model.alphaOpt * 1.1, yLabel: "α", title: "α(t); its optimum dashed", dashed: [{ v: model.alphaOpt, color: "#d62728" }], vline: run.plateau });
      out.innerHTML = `<div><b>Plateau</b> (time to test loss 0.1): <span class="toy-plateau" data-value="${run.plateau}">${fmt(run.plateau)}</span></div>
        <div>Linearised escape time (Eq. 6, ε = 0.8): <span class="toy-escape" data-value="${pred.escape}">${fmt(pred.escape)}</span>,
        <span class="toy-escape-ratio">${fmt(pred.escape / run.plateau)}</span> times the plateau</div>
        <div>The paper's fitted law, ${pred.lawText}: <span class="toy-law" data-value="${pred.law}">${fmt(pred.law)}</span>
        (ours / law: ${fmt(run.plateau / pred.law)})</div>`;
      root.dataset.state = "ready";
    }
    update();
  }

  // The numerics, for a console or a test harness: ToyExplorer.plateau(T, d, B, p).
  window.ToyExplorer = {
    inContext, crossSample, simulate, predictions,
    plateau(T, d, B, p) {
      const model = p > 0 ? crossSample(T, d, p) : inContext(T, d, B);
      return simulate(model, 40 * predictions(T, d, B, p).escape).plateau;
    },
  };

  function start() { document.querySelectorAll(".toy-explorer").forEach(setup); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
