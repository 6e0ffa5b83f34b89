/**
 * The console's stylesheet, served at /static/console.css. Kept as a module rather than a .css file
 * so the compiled build (dist/, the Docker image) carries it without a copy step.
 */
export const CONSOLE_CSS = `
:root {
  --bg: #f6f7f9;
  --card: #fff;
  --ink: #1d2330;
  --mute: #5b6475;
  --line: #dde1e8;
  --accent: #2957d6;
  /* Each at least 4.5:1 on its pill's tint (12 px text): 5.6, 5.7, 5.9. */
  --ok: #146c3e;
  --warn: #8a5200;
  --bad: #a81d24;
  font-family: system-ui, -apple-system, "Segoe UI", sans-serif;
}
* {
  box-sizing: border-box;
}
body {
  margin: 0;
  background: var(--bg);
  color: var(--ink);
  font-size: 15px;
  line-height: 1.45;
  overflow-wrap: break-word;
}
a {
  color: var(--accent);
}
a:focus-visible,
button:focus-visible,
input:focus-visible,
select:focus-visible {
  outline: 3px solid #f2b705;
  outline-offset: 2px;
}
.skip {
  position: absolute;
  left: -999px;
}
.skip:focus {
  left: 8px;
  top: 8px;
  background: #fff;
  padding: 6px;
  z-index: 9;
}
header.top {
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: 8px 24px;
  background: #18202f;
  color: #fff;
  padding: 10px 24px;
}
header.top .brand {
  font-weight: 700;
  letter-spacing: 0.02em;
}
header.top ul {
  list-style: none;
  display: flex;
  flex-wrap: wrap;
  gap: 4px;
  margin: 0;
  padding: 0;
}
header.top nav a {
  color: #cfd6e4;
  text-decoration: none;
  padding: 6px 10px;
  border-radius: 6px;
}
header.top nav a[aria-current="page"] {
  background: #2c3850;
  color: #fff;
}
header.top .logout {
  margin-left: auto;
}
main {
  padding: 20px 24px 48px;
  max-width: 1280px;
}
main.bare {
  max-width: 480px;
  margin: 10vh auto;
  background: var(--card);
  border: 1px solid var(--line);
  border-radius: 10px;
}
h1 {
  font-size: 22px;
  margin: 0 0 16px;
}
h2 {
  font-size: 17px;
  margin: 24px 0 8px;
}
.cards {
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(240px, 1fr));
  gap: 12px;
}
.card {
  background: var(--card);
  border: 1px solid var(--line);
  border-radius: 10px;
  padding: 14px 16px;
}
.card h3 {
  margin: 0 0 6px;
  font-size: 13px;
  color: var(--mute);
  font-weight: 600;
  text-transform: uppercase;
  letter-spacing: 0.04em;
}
.card .big {
  font-size: 24px;
  font-weight: 650;
}
meter {
  width: 100%;
  height: 14px;
  margin-top: 8px;
}
table {
  border-collapse: collapse;
  width: 100%;
  background: var(--card);
  border: 1px solid var(--line);
  border-radius: 10px;
  overflow: hidden;
}
th,
td {
  text-align: left;
  padding: 7px 10px;
  border-bottom: 1px solid var(--line);
  vertical-align: top;
}
th {
  background: #eef1f6;
  font-size: 13px;
  color: var(--mute);
}
td.text {
  max-width: 520px;
  min-width: 12em;
  overflow-wrap: anywhere;
}
caption {
  text-align: left;
  padding: 7px 10px;
  font-size: 13px;
  color: var(--mute);
}
.pill {
  display: inline-block;
  padding: 1px 8px;
  border-radius: 999px;
  font-size: 12px;
  font-weight: 600;
  background: #e8ebf1;
}
.pill.ok,
.pill.delivered,
.pill.active {
  background: #dcf3e6;
  color: var(--ok);
}
.pill.warning,
.pill.silenced,
.pill.pending,
.pill.no_data,
.pill.queued {
  background: #fdf0d9;
  color: var(--warn);
}
.pill.critical,
.pill.error,
.pill.dead-lettered,
.pill.disabled {
  background: #fbe0e1;
  color: var(--bad);
}
.error {
  background: #fbe0e1;
  color: #7d1419;
  border: 1px solid #f0b4b7;
  border-radius: 8px;
  padding: 8px 12px;
}
.notice {
  background: #dcf3e6;
  border: 1px solid #a9dcbf;
  border-radius: 8px;
  padding: 8px 12px;
}
.hint,
.mute {
  color: var(--mute);
  font-size: 13px;
}
form.filters,
form.add {
  display: flex;
  flex-wrap: wrap;
  gap: 10px;
  align-items: end;
  background: var(--card);
  border: 1px solid var(--line);
  border-radius: 10px;
  padding: 12px;
  margin-bottom: 14px;
}
form label {
  display: flex;
  flex-direction: column;
  font-size: 13px;
  color: var(--mute);
  gap: 3px;
}
input,
select,
button {
  font: inherit;
  padding: 5px 8px;
  border: 1px solid #b9c0cc;
  border-radius: 6px;
  background: #fff;
}
button {
  background: var(--accent);
  color: #fff;
  border-color: var(--accent);
  cursor: pointer;
}
button.secondary {
  background: #fff;
  color: var(--ink);
  border-color: #b9c0cc;
}
form.login {
  display: flex;
  flex-direction: column;
  gap: 10px;
}
form.inline {
  display: inline;
}
svg.chart {
  background: var(--card);
  border: 1px solid var(--line);
  border-radius: 10px;
  width: 100%;
  height: auto;
}
svg.chart text {
  font:
    11px system-ui,
    sans-serif;
  fill: var(--mute);
}
.sr-only {
  position: absolute;
  width: 1px;
  height: 1px;
  overflow: hidden;
  clip-path: inset(50%);
  white-space: nowrap;
}
nav.ranges a {
  display: inline-block;
  padding: 3px 10px;
  border: 1px solid var(--line);
  border-radius: 999px;
}
nav.ranges a.current {
  font-weight: 600;
  border-color: currentColor;
}
.field {
  display: flex;
  flex-direction: column;
  gap: 3px;
  font-size: 13px;
  color: var(--mute);
}
pre,
code {
  white-space: pre-wrap;
  overflow-wrap: anywhere;
}
/* A phone (390 px): the page never scrolls sideways; a wide table scrolls inside itself. */
@media (max-width: 700px) {
  header.top {
    padding: 8px 12px;
  }
  header.top nav a {
    padding: 6px 7px;
  }
  main {
    padding: 14px 12px 40px;
  }
  table {
    display: block;
    overflow-x: auto;
  }
  td.text {
    min-width: 10em;
  }
  .cards {
    grid-template-columns: 1fr;
  }
  form.filters > *,
  form.add > * {
    max-width: 100%;
  }
  input,
  select {
    max-width: 100%;
  }
  main.bare {
    margin: 16px 12px;
  }
}
`;
