package anthropic

import (
	"encoding/base64"

	"github.com/parleybot/parley/agent/llm"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
)

// userBlocks are a user message's content blocks: its text, then each
// image as a base64 image block (the bytes go in the request: the
// platforms' file URLs need the bot's credentials). An empty text block
// is rejected by the API, so a message of images alone has none.
func userBlocks(m llm.Message) []sdk.ContentBlockParamUnion {
	blocks := make([]sdk.ContentBlockParamUnion, 0, 1+len(m.Images))
	if text := llm.UserText(m); text != "" || len(m.Images) == 0 {
		blocks = append(blocks, sdk.NewTextBlock(text))
	}
	for _, img := range m.Images {
		if len(img.Data) == 0 {
			// Its bytes are gone (see llm.Image.Data): say it was there.
			blocks = append(blocks, sdk.NewTextBlock(img.Placeholder("no longer available")))
			continue
		}
		blocks = append(blocks, sdk.NewImageBlockBase64(img.MIME, base64.StdEncoding.EncodeToString(img.Data)))
	}
	return blocks
}
