// The page's one stylesheet. Palettes: Okabe-Ito for series (distinct for
// the common colour-vision deficiencies) and viridis steps for the heatmap
// and the distance matrix (ordered in lightness, readable in grey print).
#include "report/page.h"

namespace railkit::report {

const char* pageStyle() {
  return R"css(:root { --bg: #ffffff; --fg: #1d2127; --muted: #5f6b7a; --grid: #d9dde3; --panel: #f4f6f8;
  --ok: #009E73; --warn: #E69F00; --err: #D55E00; --info: #0072B2; --bound: #1d2127; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #15181d; --fg: #e6e9ee; --muted: #9aa5b4; --grid: #343a44; --panel: #1e232a; --bound: #e6e9ee; }
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1180px; padding: 16px 24px; background: var(--bg); color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
h1 { font-size: 22px; margin: 4px 0; } h2 { font-size: 18px; border-bottom: 1px solid var(--grid); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
nav a { margin-right: 12px; color: var(--info); }
.muted, footer { color: var(--muted); } footer { margin-top: 32px; font-size: 12px; }
section { margin: 20px 0; break-inside: avoid-page; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 12.5px; }
th, td { border: 1px solid var(--grid); padding: 3px 7px; text-align: left; vertical-align: top; }
thead th { background: var(--panel); }
table.numbers td { font-variant-numeric: tabular-nums; }
table.numbers { display: block; overflow-x: auto; max-width: 100%; }
caption { text-align: left; color: var(--muted); padding: 2px 0; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; }
pre.evidence { background: var(--panel); padding: 6px; white-space: pre-wrap; word-break: break-all; margin: 4px 0; }
.verdict { display: inline-block; font-size: 26px; font-weight: 700; padding: 4px 18px; border-radius: 6px; color: #fff; margin: 0; }
.verdict.pass { background: var(--ok); } .verdict.fail { background: var(--err); }
.sev { font-weight: 600; } .sev.error, .bad { color: var(--err); } .sev.warning { color: var(--warn); } .sev.info { color: var(--info); }
tr.bad td { color: var(--err); }
table.fabric td.home, table.fabric span.home { background: var(--panel); }
table.fabric td.stray, table.fabric span.stray { background: var(--err); color: #fff; font-weight: 700; }
table.fabric span { display: inline-block; padding: 0 4px; margin: 1px; border-radius: 3px; }
table.fabric { display: block; overflow-x: auto; max-width: 100%; }
.fix { margin: 2px 0 8px; color: var(--muted); }
ul.legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 18px; margin: 4px 0; font-size: 12.5px; }
.chip { display: inline-block; width: 14px; height: 14px; vertical-align: -2px; margin-right: 5px; border: 1px solid var(--grid); }
figure { margin: 0; } svg { max-width: 100%; height: auto; font-size: 11px; }
svg text { fill: var(--fg); } .tick { fill: var(--muted); } .axis-title { font-size: 12px; }
.grid { stroke: var(--grid); stroke-width: 1; } .axis { stroke: var(--fg); stroke-width: 1; }
polyline { fill: none; stroke-width: 2; } polyline.dashed { stroke-dasharray: 6 4; }
.s0 { stroke: #0072B2; fill: #0072B2; } .s1 { stroke: #E69F00; fill: #E69F00; } .s2 { stroke: #009E73; fill: #009E73; }
.s3 { stroke: #CC79A7; fill: #CC79A7; } .s4 { stroke: #56B4E9; fill: #56B4E9; } .s5 { stroke: #D55E00; fill: #D55E00; }
.s6 { stroke: #F0E442; fill: #F0E442; } .s7 { stroke: #999999; fill: #999999; }
.s0 polyline, .s1 polyline, .s2 polyline, .s3 polyline, .s4 polyline, .s5 polyline, .s6 polyline, .s7 polyline,
svg.swatch line { fill: none; stroke-width: 2; } svg.swatch line.dashed { stroke-dasharray: 6 4; }
svg.swatch { vertical-align: middle; }
line.bound { stroke: var(--bound); stroke-width: 1.5; stroke-dasharray: 2 3; }
line.graded { stroke: var(--err); stroke-width: 1.5; stroke-dasharray: 8 3 2 3; }
.line-label { font-size: 11px; } circle.peak { fill: none; stroke: var(--fg); stroke-width: 1.5; }
.peak-label { font-weight: 600; }
.h0 { fill: #440154; background: #440154; } .h1 { fill: #3b528b; background: #3b528b; } .h2 { fill: #21918c; background: #21918c; }
.h3 { fill: #5ec962; background: #5ec962; } .h4 { fill: #addc30; background: #addc30; } .h5 { fill: #fde725; background: #fde725; }
rect.cell { stroke: var(--bg); stroke-width: 0.5; } rect.cell.slow { stroke: var(--err); stroke-width: 2.5; }
.slow-chip { border: 2.5px solid var(--err); }
.suspect { fill: var(--err); color: var(--err); font-weight: 700; }
rect.suspect-band { fill: none; stroke: var(--err); stroke-width: 1; stroke-dasharray: 3 2; }
.scroll { overflow-x: auto; }
table.grid td { text-align: center; min-width: 26px; font-weight: 700; }
table.grid td:first-child, table.grid td:nth-child(2) { text-align: left; font-weight: 400; }
table.grid td.ok { color: var(--ok); } table.grid td.error { background: var(--err); color: #fff; }
table.grid td.warning { background: var(--warn); color: #000; } table.grid td.info { color: var(--info); }
th.check { height: 120px; white-space: nowrap; vertical-align: bottom; }
th.check span { writing-mode: vertical-rl; transform: rotate(180deg); }
table.topo td { text-align: center; min-width: 52px; font-weight: 600; }
.d0 { background: #fde725; color: #000; } .d1 { background: #5ec962; color: #000; } .d2 { background: #21918c; color: #fff; }
.d3 { background: #3b528b; color: #fff; } .d4 { background: #440154; color: #fff; } .dx { background: var(--panel); }
ul.evidence-list { padding-left: 18px; } details { margin: 6px 0; }
@media print {
  :root { --bg: #fff; --fg: #000; --muted: #444; --grid: #bbb; --panel: #f2f2f2; }
  body { max-width: none; padding: 0; font-size: 11px; } nav, details { display: none; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  .scroll { overflow: visible; } figure, table { break-inside: avoid; } table.numbers { display: table; }
}
)css";
}

}  // namespace railkit::report
