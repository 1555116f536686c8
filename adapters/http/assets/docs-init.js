// Starts the API reference on /docs. A file of its own, so the page's CSP needs no inline script.
// Scalar's hosted extras (AI chat, MCP generator, telemetry, toolbar) would call its servers: off.
Scalar.createApiReference("#reference", {
  url: document.getElementById("reference").dataset.specUrl,
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: "never",
  agent: { disabled: true },
  mcp: { disabled: true },
});
