package webfetch

import (
	"fmt"
	"strings"
)

// Test pages. The sentinels (NAV-SENTINEL …) mark page chrome that must not
// reach the model.

const articleHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tide Tables of Brest | Example Harbour News</title>
<link rel="stylesheet" href="/site.css"><script>window.tracking = "SCRIPT-SENTINEL";</script></head>
<body>
<header class="site-header"><nav class="menu">
<a href="/">NAV-SENTINEL Home</a> <a href="/about">About us</a> <a href="/contact">Contact</a>
</nav></header>
<main><article>
<h1>Tide Tables of Brest</h1>
<p>The harbour of Brest sees some of the largest tidal ranges in Europe. Twice a day the sea rises
and falls by as much as seven metres, and every sailor who leaves the Rade de Brest plans around it.
This article explains how to read the official tables and what the coefficients mean.</p>
<p>A tide coefficient compares the range of a given tide with the average range of spring tides.
A coefficient of 100 is an average spring tide; 120 is the theoretical maximum and 20 the minimum.
Coefficients above 95 bring strong currents through the Goulet, the narrow entrance of the bay.</p>
<table>
<caption>High water at Brest, first week</caption>
<thead><tr><th>Day</th><th>High water</th><th>Coefficient</th></tr></thead>
<tbody>
<tr><td>Monday</td><td>06:12</td><td>95</td></tr>
<tr><td>Tuesday</td><td>06:58</td><td>101</td></tr>
<tr><td>Wednesday</td><td>07:41</td><td>104</td></tr>
</tbody></table>
<p>Local weather matters as much as the table: a strong westerly wind and low pressure can raise the
water by several tens of centimetres above the prediction, so harbour masters publish corrections
during storms. Always check the latest bulletin before crossing the bar at low water.</p>
</article></main>
<aside class="sidebar"><h3>Related</h3><a href="/x">ASIDE-SENTINEL related story</a></aside>
<footer class="site-footer"><p>FOOTER-SENTINEL Copyright 2026 Example Harbour News. All rights reserved.</p></footer>
</body></html>`

// latin1Page is ISO-8859-1 encoded: é is the single byte 0xE9.
var latin1Page = "<html><head><title>Caf\xe9</title></head><body><article><p>" +
	strings.Repeat("Le caf\xe9 cr\xe8me et la cr\xe8me br\xfbl\xe9e sont servis au comptoir. ", 8) +
	"</p></article></body></html>"

// latin1MetaPage declares its charset only in a <meta> tag.
var latin1MetaPage = `<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">` +
	"<title>Na\xefve</title></head><body><p>Na\xefve fa\xe7ade, d\xe9j\xe0 vu.</p></body></html>"

// linkListHTML has no article for readability to find.
const linkListHTML = `<html><head><title>Index</title></head><body>
<ul><li><a href="/a">LINK-ONE</a></li><li><a href="/b">LINK-TWO</a></li></ul></body></html>`

// bigHTML builds a realistic page of about n bytes: chrome, a long article
// with headings, lists, links and a table, then comments and a footer.
func bigHTML(n int) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><meta charset="utf-8"><title>Benchmark article</title>`)
	b.WriteString(`<style>body{font-family:sans-serif}</style><script>var x = 1;</script></head><body>`)
	b.WriteString(`<header><nav><ul>`)
	for i := range 30 {
		fmt.Fprintf(&b, `<li><a href="/section/%d">Section %d</a></li>`, i, i)
	}
	b.WriteString(`</ul></nav></header><main><article><h1>Benchmark article</h1>`)
	for i := 0; b.Len() < n-4000; i++ {
		if i%6 == 0 {
			fmt.Fprintf(&b, "<h2>Part %d</h2>", i/6+1)
		}
		fmt.Fprintf(&b, `<p>Paragraph %d discusses <a href="/ref/%d">a reference</a>, some <em>emphasis</em> and `+
			`<code>inline_code()</code>. Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod `+
			`tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation.</p>`, i, i)
		if i%10 == 5 {
			b.WriteString(`<ul><li>first point</li><li>second point</li><li>third point</li></ul>`)
		}
		if i%25 == 12 {
			b.WriteString(`<table><thead><tr><th>Key</th><th>Value</th><th>Note</th></tr></thead><tbody>`)
			for r := range 8 {
				fmt.Fprintf(&b, `<tr><td>k%d</td><td>%d</td><td>note %d</td></tr>`, r, r*r, r)
			}
			b.WriteString(`</tbody></table>`)
		}
	}
	b.WriteString(`</article></main><aside>`)
	for i := range 10 {
		fmt.Fprintf(&b, `<div class="comment"><a href="/u/%d">user%d</a> great post</div>`, i, i)
	}
	b.WriteString(`</aside><footer><p>Copyright. All rights reserved.</p></footer></body></html>`)
	return b.String()
}
