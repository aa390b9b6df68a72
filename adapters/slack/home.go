package slack

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/parleybot/parley/bot/format"
	"github.com/parleybot/parley/chat"
)

// The App Home's Home tab (docs/slack.md#the-home-tab): app_home_opened
// becomes a chat.HomeOpened for the core, and the page the core builds
// (chat.Home) is laid out in Block Kit and published with views.publish.

const (
	// homeTab is app_home_opened's tab for the Home tab; the Messages
	// and About tabs open nothing of Parley's.
	homeTab = "home"
	// maxViewBlocks is a Home tab view's block limit.
	maxViewBlocks = 100
	// maxHeaderText is a header block's text limit.
	maxHeaderText = 150
	// homeLinkAction names the Home's link button; a click on it comes
	// back as block_actions from a view, which normalizeAction ignores
	// (the browser opens the URL, Parley has nothing to do).
	homeLinkAction  = "parley_home_link"
	homeBlockPrefix = "parley_home_"
)

var _ chat.HomePublisher = (*Adapter)(nil)

// normalizeHome turns app_home_opened in workspace team into a
// HomeOpened; ok is false for another tab, a missing user, or the bot
// (or any bot: B… ids are bots, never people).
func normalizeHome(team string, ev *slackevents.AppHomeOpenedEvent, me self) (chat.HomeOpened, bool) {
	if ev == nil || ev.Tab != homeTab || ev.User == "" || ev.User == me.UserID || strings.HasPrefix(ev.User, "B") {
		return chat.HomeOpened{}, false
	}
	return chat.HomeOpened{User: chat.User{Platform: platform, ID: ev.User}, Space: team}, true
}

// homeOpened hands a Home tab opened to the handler, when it shows pages
// (chat.HomeHandler); otherwise the event is only acknowledged.
func (a *Adapter) homeOpened(ctx context.Context, h chat.Handler, team string, ev *slackevents.AppHomeOpenedEvent) error {
	hh, ok := h.(chat.HomeHandler)
	if !ok {
		return nil
	}
	o, ok := normalizeHome(team, ev, a.identity())
	if !ok {
		return nil
	}
	return hh.HandleHome(ctx, o)
}

// PublishHome shows home on u's Home tab (views.publish). The view is
// u's alone: Slack shows a user's published Home tab to that user only.
func (a *Adapter) PublishHome(ctx context.Context, u chat.User, home chat.Home) error {
	if u.ID == "" {
		return errors.New("slack: views.publish without a user")
	}
	blocks, err := renderHome(home)
	if err != nil {
		return err
	}
	_, err = a.api.PublishViewContext(ctx, slack.PublishViewContextRequest{
		UserID: u.ID,
		View:   slack.HomeTabViewRequest{Type: slack.VTHomeTab, Blocks: slack.Blocks{BlockSet: blocks}},
	})
	return wrap("views.publish", err)
}

// renderHome lays home out in Block Kit: a header, one mrkdwn section per
// line (cut where Slack's section limit asks), and the link as a URL
// button.
func renderHome(home chat.Home) ([]slack.Block, error) {
	var blocks []slack.Block
	if title := strings.TrimSpace(home.Title); title != "" {
		if utf8.RuneCountInString(title) > maxHeaderText {
			title = string([]rune(title)[:maxHeaderText-1]) + "…"
		}
		blocks = append(blocks, slack.NewHeaderBlock(slack.NewTextBlockObject(slack.PlainTextType, title, false, false),
			slack.HeaderBlockOptionBlockID(homeBlockPrefix+"title")))
	}
	n := 0
	for _, line := range home.Lines {
		for _, chunk := range chunkUTF16(format.Slack(line), maxSectionText) {
			blocks = append(blocks, slack.NewSectionBlock(
				slack.NewTextBlockObject(slack.MarkdownType, chunk, false, false), nil, nil,
				slack.SectionBlockOptionBlockID(homeBlockPrefix+"text_"+strconv.Itoa(n))))
			n++
		}
	}
	if l := home.Link; l != nil {
		if !strings.HasPrefix(l.URL, "https://") && !strings.HasPrefix(l.URL, "http://") {
			return nil, fmt.Errorf("slack home: the link %q is no web address", l.Label)
		}
		b := slack.NewButtonBlockElement(homeLinkAction, "", slack.NewTextBlockObject(slack.PlainTextType, l.Label, false, false))
		b.URL, b.Style = l.URL, slack.StylePrimary
		blocks = append(blocks, slack.NewActionBlock(homeBlockPrefix+"link", b))
	}
	if len(blocks) > maxViewBlocks {
		return nil, fmt.Errorf("slack home view needs %d blocks; Slack allows %d", len(blocks), maxViewBlocks)
	}
	return blocks, nil
}
