package chat

// HomeOpened is a person opening the app's own page (Slack: the Home tab
// of the App Home, event app_home_opened). It is not durable and has no
// inbox key: a page that failed to show is shown again the next time it
// is opened.
type HomeOpened struct {
	User User
	// Space is the workspace or server the person opened it in (Slack's
	// team); "" where the platform has none.
	Space string
}

// Home is what a person's own page shows, platform-neutral: the adapter
// lays it out (Slack: a header, mrkdwn sections, an actions block).
type Home struct {
	Title string
	// Lines are Markdown paragraphs, in order.
	Lines []string
	// Link, when set, is a button that opens a URL.
	Link *HomeLink
}

// HomeLink is a button on a Home that opens URL in the browser.
type HomeLink struct {
	Label string
	URL   string
}
