import { createHash } from 'node:crypto';

/**
 * The sign-in pages' only stylesheet, served from /oauth2/assets/idp.css
 * (the CSP allows no inline style). Beer and foam colours, mobile first,
 * dark mode from the system setting.
 */
export const IDP_CSS = `
:root {
  color-scheme: light dark;
  --beer: #f2a900;
  --beer-deep: #c98800;
  --beer-ink: #2b1d00;
  --foam: #fff8e7;
  --bg: #fdf3dc;
  --bg-glow: #ffe3a1;
  --card: #ffffff;
  --text: #2b2214;
  --muted: #6b5a3e;
  --border: #dccaa0;
  --field: #fffdf7;
  --focus: #7a4b00;
  --error: #b3261e;
  --error-bg: #fdecea;
  --error-border: #f3b8b2;
  --shadow: 0 1px 2px rgba(80, 55, 0, 0.08), 0 12px 32px rgba(80, 55, 0, 0.14);
}
@media (prefers-color-scheme: dark) {
  :root {
    --beer: #f5b82e;
    --beer-deep: #ffcc55;
    --beer-ink: #241800;
    --foam: #efe0b9;
    --bg: #16110a;
    --bg-glow: #2c2010;
    --card: #221a0f;
    --text: #f8efd8;
    --muted: #cdbb95;
    --border: #5a4a2c;
    --field: #1b150c;
    --focus: #ffd978;
    --error: #ffb4a8;
    --error-bg: #3b1512;
    --error-border: #7a2a22;
    --shadow: 0 1px 2px rgba(0, 0, 0, 0.4), 0 12px 32px rgba(0, 0, 0, 0.45);
  }
}
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body {
  margin: 0;
  min-height: 100vh;
  min-height: 100dvh;
  display: flex;
  flex-direction: column;
  align-items: center;
  justify-content: center;
  padding: 24px 16px 40px;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif,
    "Apple Color Emoji", "Segoe UI Emoji";
  font-size: 16px;
  line-height: 1.5;
  color: var(--text);
  background: radial-gradient(ellipse at top, var(--bg-glow), var(--bg) 60%) fixed, var(--bg);
}
.brand {
  display: flex;
  flex-direction: column;
  align-items: center;
  gap: 4px;
  margin-bottom: 20px;
  text-align: center;
}
.brand-mug { font-size: 48px; line-height: 1; }
.brand-name {
  margin: 0;
  font-size: 28px;
  font-weight: 800;
  letter-spacing: -0.02em;
  color: var(--text);
}
.brand-tagline { margin: 0; color: var(--muted); font-size: 15px; }
.card {
  width: 100%;
  max-width: 400px;
  background: var(--card);
  border-radius: 18px;
  box-shadow: var(--shadow);
  overflow: hidden;
}
.card::before {
  content: "";
  display: block;
  height: 10px;
  background:
    radial-gradient(circle at 10px 0, var(--foam) 9px, transparent 10px) 0 0 / 28px 10px repeat-x,
    linear-gradient(90deg, var(--beer), var(--beer-deep));
}
.card-body { padding: 24px 20px 28px; }
h1 { margin: 0 0 4px; font-size: 22px; font-weight: 700; letter-spacing: -0.01em; }
.lead { margin: 0 0 20px; color: var(--muted); font-size: 15px; }
form { margin: 0; }
.field { margin-bottom: 16px; }
label { display: block; margin-bottom: 6px; font-weight: 600; font-size: 15px; }
input[type="text"], input[type="email"], input[type="password"], textarea {
  display: block;
  width: 100%;
  min-height: 48px;
  padding: 10px 14px;
  font: inherit;
  font-size: 16px;
  color: var(--text);
  background: var(--field);
  border: 1.5px solid var(--border);
  border-radius: 12px;
  transition: border-color 0.15s, box-shadow 0.15s;
}
input:hover { border-color: var(--beer-deep); }
input:focus { outline: none; border-color: var(--beer); box-shadow: 0 0 0 3px color-mix(in srgb, var(--beer) 35%, transparent); }
input:focus-visible { outline: 2px solid var(--focus); outline-offset: 2px; }
input[aria-invalid="true"] { border-color: var(--error); }
.hint { margin: 6px 0 0; font-size: 13px; color: var(--muted); }
textarea { resize: vertical; min-height: 80px; }
.rules { margin: 0 0 18px; padding: 12px 14px; border: 1.5px solid var(--border); border-radius: 12px; }
.rules h2 { margin: 0 0 6px; font-size: 16px; }
.rules ol { margin: 0 0 12px; padding-left: 22px; }
.rules li { margin: 4px 0; overflow-wrap: anywhere; }
.check { display: flex; gap: 10px; align-items: center; }
.check input { width: 22px; height: 22px; margin: 0; accent-color: var(--beer-deep); }
.check label { margin: 0; }
.field-error { margin: 6px 0 0; font-size: 14px; color: var(--error); font-weight: 600; }
.alert {
  margin: 0 0 18px;
  padding: 12px 14px;
  border-radius: 12px;
  border: 1px solid var(--error-border);
  background: var(--error-bg);
  color: var(--error);
  font-weight: 600;
  font-size: 15px;
}
.button {
  display: inline-flex;
  align-items: center;
  justify-content: center;
  width: 100%;
  min-height: 48px;
  margin-top: 8px;
  padding: 12px 18px;
  font: inherit;
  font-weight: 700;
  font-size: 17px;
  color: var(--beer-ink);
  background: linear-gradient(180deg, #ffc53d, var(--beer));
  border: 0;
  border-radius: 12px;
  cursor: pointer;
  text-decoration: none;
  box-shadow: inset 0 -2px 0 rgba(0, 0, 0, 0.12);
  transition: filter 0.15s, transform 0.05s;
}
.button:hover { filter: brightness(0.95); }
.button:active { transform: translateY(1px); }
.button:focus-visible { outline: 3px solid var(--focus); outline-offset: 3px; }
.switch { margin: 20px 0 0; text-align: center; color: var(--muted); font-size: 15px; }
a { color: var(--focus); font-weight: 600; text-underline-offset: 2px; }
a:hover { text-decoration-thickness: 2px; }
a:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; border-radius: 4px; }
.forgot { margin: -8px 0 16px; text-align: right; font-size: 15px; }
.footer { margin-top: 24px; font-size: 13px; color: var(--muted); text-align: center; }
@media (min-width: 480px) {
  .card-body { padding: 32px 32px 32px; }
  .brand-mug { font-size: 56px; }
}
@media (prefers-reduced-motion: reduce) {
  * { transition: none !important; }
}
`;

/** Short content hash: the link carries it, so the file can be cached for a year. */
export const IDP_CSS_VERSION = createHash('sha256').update(IDP_CSS).digest('base64url').slice(0, 12);
