/** The config forms' styles, served after the console's own (server.ts joins them). */
export const FORM_CSS = `
form.config {
  display: grid;
  gap: 10px;
  background: var(--card);
  border: 1px solid var(--line);
  border-radius: 10px;
  padding: 12px;
  margin: 8px 0 16px;
  max-width: 720px;
}
form.config input,
form.config select,
form.config textarea {
  width: 100%;
  max-width: 100%;
  font: inherit;
  padding: 6px;
}
form.config .actions {
  display: flex;
  flex-wrap: wrap;
  gap: 8px;
}
fieldset.choices {
  border: 1px solid var(--line);
  border-radius: 6px;
  display: flex;
  flex-direction: row;
  flex-wrap: wrap;
  gap: 4px 14px;
}
fieldset.choices label.choice {
  display: inline-flex;
  flex-direction: row;
  gap: 4px;
  align-items: center;
  color: var(--ink);
}
fieldset.choices input {
  width: auto;
}
.field-error {
  color: var(--bad);
  font-size: 13px;
  overflow-wrap: anywhere;
}
.readonly {
  background: #fff7e0;
  border: 1px solid #e7c66b;
  border-radius: 8px;
  padding: 8px 12px;
}
.verdict.fits {
  color: var(--ok);
}
.verdict.over {
  color: var(--bad);
}
.wrap {
  overflow-wrap: anywhere;
}
.table-scroll {
  max-width: 100%;
  overflow-x: auto;
}
`;
