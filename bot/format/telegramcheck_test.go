package format

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

var (
	langClass  = regexp.MustCompile(`^class="language-[A-Za-z0-9_+#.-]+"$`)
	numericRef = regexp.MustCompile(`^&#([0-9]{1,7}|x[0-9a-fA-F]{1,6});$`)
)

// checkTelegramHTML validates s the way Telegram's HTML parse mode would,
// plus Telegram's nesting rules, strictly: only the tags Parley emits
// (b i s u code pre a blockquote) with only the attributes Telegram knows,
// balanced and properly nested; nothing inside code/pre (except
// <pre><code class="language-x">); no link, code or pre inside a link; no
// blockquote in a blockquote; every < and > part of a tag; every & a
// character reference Telegram decodes.
func checkTelegramHTML(s string) error {
	var stack []string
	has := func(tag string) bool {
		for _, t := range stack {
			if t == tag {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(s); {
		switch s[i] {
		case '<':
			end := strings.IndexByte(s[i:], '>')
			if end < 0 {
				return fmt.Errorf("raw '<' at %d", i)
			}
			tag := s[i+1 : i+end]
			if strings.ContainsAny(tag, "<\n") {
				return fmt.Errorf("raw '<' at %d", i)
			}
			if name, ok := strings.CutPrefix(tag, "/"); ok {
				if len(stack) == 0 || stack[len(stack)-1] != name {
					return fmt.Errorf("unexpected </%s> at %d (open: %v)", name, i, stack)
				}
				stack = stack[:len(stack)-1]
			} else {
				name, attrs, _ := strings.Cut(tag, " ")
				parent := ""
				if len(stack) > 0 {
					parent = stack[len(stack)-1]
				}
				switch name {
				case "b", "i", "s", "u", "pre", "blockquote":
					if attrs != "" {
						return fmt.Errorf("<%s> with attributes %q", name, attrs)
					}
				case "code":
					if attrs != "" && !(langClass.MatchString(attrs) && parent == "pre") {
						return fmt.Errorf("<code %s> at %d", attrs, i)
					}
				case "a":
					v, ok := strings.CutPrefix(attrs, `href="`)
					if !ok || !strings.HasSuffix(v, `"`) || strings.ContainsAny(v[:len(v)-1], `"<>`) {
						return fmt.Errorf("bad <a %s> at %d", attrs, i)
					}
				default:
					return fmt.Errorf("unsupported tag <%s> at %d", tag, i)
				}
				if has("code") || (has("pre") && !(name == "code" && parent == "pre")) {
					return fmt.Errorf("<%s> inside code/pre at %d", name, i)
				}
				if has("a") && (name == "a" || name == "code" || name == "pre") {
					return fmt.Errorf("<%s> inside a link at %d", name, i)
				}
				if name == "blockquote" && has("blockquote") {
					return fmt.Errorf("nested blockquote at %d", i)
				}
				stack = append(stack, name)
			}
			i += end + 1
		case '>':
			return fmt.Errorf("raw '>' at %d", i)
		case '&':
			end := strings.IndexByte(s[i:], ';')
			ref := ""
			if end > 0 {
				ref = s[i : i+end+1]
			}
			switch {
			case ref == "&lt;", ref == "&gt;", ref == "&amp;", ref == "&quot;":
			case numericRef.MatchString(ref):
			default:
				return fmt.Errorf("bare '&' at %d", i)
			}
			i += end + 1
		default:
			i++
		}
	}
	if len(stack) > 0 {
		return fmt.Errorf("unclosed %v", stack)
	}
	return nil
}

func TestCheckTelegramHTML(t *testing.T) {
	good := []string{
		"", "a &lt; b &amp;&amp; c", "<b>x <i>y</i></b>", `<a href="https://x.io/?a=1&amp;b">x <b>y</b></a>`,
		`<pre><code class="language-go">x</code></pre>`, "<blockquote><b>q</b></blockquote>",
	}
	bad := []string{
		"a < b", "a > b", "a & b", "<b>x", "<b>x</i>", "<br>", "<code><b>x</b></code>",
		`<code class="language-go">x</code>`, `<a href="x">y<a href="z">w</a></a>`,
		"<blockquote><blockquote>x</blockquote></blockquote>", `<a href="x"><code>c</code></a>`, "<b x=1>y</b>",
	}
	for _, s := range good {
		if err := checkTelegramHTML(s); err != nil {
			t.Errorf("checkTelegramHTML(%q) = %v, want nil", s, err)
		}
	}
	for _, s := range bad {
		if checkTelegramHTML(s) == nil {
			t.Errorf("checkTelegramHTML(%q) = nil, want an error", s)
		}
	}
}
