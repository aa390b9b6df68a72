package format

import (
	"reflect"
	"strings"
	"testing"
)

func TestCJKCandidates(t *testing.T) {
	tests := []struct {
		src  string
		want []int // insertion offsets
	}{
		{"**注意：**请看", []int{len("**注意：**")}},
		{"これは**「重要」**です", []int{len("これは"), len("これは**「重要」**")}},
		{"这是**重要**的", nil},
		{"「**重要**」", nil},
		{"foo**(bar)**baz", nil}, // English keeps CommonMark's behaviour
		{"**注意：**Please", []int{len("**注意：**")}},
		{"\\*\\*注意：\\*\\*请看", nil}, // escaped stars are not delimiters
	}
	for _, tc := range tests {
		var got []int
		for _, c := range cjkCandidates([]byte(tc.src)) {
			got = append(got, c.at)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("cjkCandidates(%q) = %v, want %v", tc.src, got, tc.want)
		}
	}
}

func TestCJKEmphasis(t *testing.T) {
	tests := []struct{ md, telegram string }{
		{"**注意：**请看", "<b>注意：</b>请看"},
		{"これは**「重要」**です", "これは<b>「重要」</b>です"},
		{"**注意。**下一步**继续**", "<b>注意。</b>下一步<b>继续</b>"},
		{"**注意：**Please read", "<b>注意：</b>Please read"},
		{"说明：这是**（可选）**参数", "说明：这是<b>（可选）</b>参数"},
		{"*注意：*请看", "<i>注意：</i>请看"},
		{"- **步骤一：**安装", "• <b>步骤一：</b>安装"},
		{"> 这是**“引用”**内容", "<blockquote>这是<b>“引用”</b>内容</blockquote>"},
		{"foo**(bar)**baz", "foo**(bar)**baz"},
		// Code is never touched.
		{"`**注意：**请看`", "<code>**注意：**请看</code>"},
		{"    **注意：**请看", "<pre>**注意：**请看</pre>"},
		{"<div>**注意：**请看</div>", "&lt;div&gt;**注意：**请看&lt;/div&gt;"},
		{"**注意：**请看 `**注意：**请看`", "<b>注意：</b>请看 <code>**注意：**请看</code>"},
	}
	for _, tc := range tests {
		got := TelegramHTML(tc.md)
		if got != tc.telegram {
			t.Errorf("TelegramHTML(%q) = %q, want %q", tc.md, got, tc.telegram)
		}
		for name, out := range map[string]string{"slack": Slack(tc.md), "discord": Discord(tc.md), "plain": Plain(tc.md), "telegram": got} {
			if strings.Contains(out, "\\") {
				t.Errorf("%s(%q) = %q: stray backslash", name, tc.md, out)
			}
		}
	}
}
