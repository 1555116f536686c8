// Starts the API reference on /docs. A file of its own, so the page's CSP needs no inline script.
Scalar.createApiReference("#api-reference", {
  url: document.getElementById("api-reference").dataset.url,
  withDefaultFonts: false,
  hideClientButton: false,
});
