// Package static holds the dashboard's built assets, embedded in the binary: the Tailwind CSS
// (built by `npm run build:css` and committed, so the Go build never needs Node), htmx vendored
// from the npm package htmx.org, and the dashboard's own small script.
package static

import "embed"

// FS holds css/app.css, js/htmx.min.js and js/app.js.
//
//go:embed css/app.css js/htmx.min.js js/app.js
var FS embed.FS
