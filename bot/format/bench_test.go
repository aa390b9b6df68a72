package format

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// benchAnswer builds a mixed answer of about n × 4 KB, in the shape models
// produce: headings, prose with inline markup, lists, code, a table, CJK.
func benchAnswer(n int) string {
	unit := `## Step %d: configure the service

The **first** thing to check is the *configuration* file at ` + "`/etc/parley/config.yaml`" + `. If the
value of ` + "`llm.openai.base_url`" + ` is wrong, requests fail with a 404; see [the docs](https://example.com/docs?section=llm&lang=en).

1. Stop the service: ` + "`systemctl stop parley`" + `
2. Edit the file and set the *timeout* to **30 s**.
   - Keep retries at ~~5~~ 2.
   - Don't forget <https://status.example.com>.
3. Start it again.

` + "```go" + `
func retry(ctx context.Context, f func() error) error {
	for attempt := 0; attempt < 3; attempt++ {
		if err := f(); err == nil || ctx.Err() != nil {
			return err
		}
		time.Sleep(time.Duration(attempt) * time.Second) // a < b && c > d
	}
	return errors.New("gave up")
}
` + "```" + `

| Setting | Default | Notes |
|:--------|--------:|-------|
| timeout | 10 s | per request |
| retries | 2 | with jitter |
| 模型 | gpt | 中文说明 |

> **Note:** changes apply after a restart. 这是**重要**的，**注意：**请看日志。

That's all for this step! Questions? Ask in the thread.

`
	var b strings.Builder
	for b.Len() < n*4096 {
		b.WriteString(strings.Replace(unit, "%d", string(rune('0'+b.Len()/len(unit)%10)), 1))
	}
	return b.String()
}

func benchRender(b *testing.B, render func(string) string) {
	md := benchAnswer(1)
	b.SetBytes(int64(len(md)))
	b.ReportAllocs()
	for b.Loop() {
		render(md)
	}
}

func BenchmarkRenderSlack(b *testing.B)    { benchRender(b, Slack) }
func BenchmarkRenderTelegram(b *testing.B) { benchRender(b, TelegramHTML) }
func BenchmarkRenderDiscord(b *testing.B)  { benchRender(b, Discord) }
func BenchmarkRenderPlain(b *testing.B)    { benchRender(b, Plain) }

// BenchmarkRenderTelegramNoCJKFix is the same answer without the CJK
// emphasis that needs the pre-pass, i.e. with a single parse.
func BenchmarkRenderTelegramNoCJKFix(b *testing.B) {
	md := strings.ReplaceAll(benchAnswer(1), "**注意：**请看", "请看")
	b.SetBytes(int64(len(md)))
	b.ReportAllocs()
	for b.Loop() {
		TelegramHTML(md)
	}
}

func benchSplit(b *testing.B, limit int, measure func(string) int) {
	md := benchAnswer(5) // ~20 KB
	b.SetBytes(int64(len(md)))
	b.ReportAllocs()
	var parts int
	for b.Loop() {
		parts = len(Split(md, limit, measure))
	}
	b.ReportMetric(float64(parts), "parts")
}

func BenchmarkSplit20KBTelegram(b *testing.B) { benchSplit(b, TelegramSplitLen, MeasureTelegram) }
func BenchmarkSplit20KBSlack(b *testing.B)    { benchSplit(b, SlackSplitLen, MeasureSlack) }
func BenchmarkSplit20KBDiscord(b *testing.B)  { benchSplit(b, DiscordSplitLen, MeasureDiscord) }

// BenchmarkSplit20KBRunes is the cheapest useful measure, for comparison.
func BenchmarkSplit20KBRunes(b *testing.B) {
	benchSplit(b, SlackSplitLen, func(s string) int { return utf8.RuneCountInString(Slack(s)) })
}
