package openai

import (
	"encoding/base64"

	"github.com/parleybot/parley/agent/llm"

	sdk "github.com/openai/openai-go/v3"
)

// userMessage is a user message as Chat Completions takes it: a plain
// string without images, else content parts — the text, then each image
// as an image_url part holding a data URL (the bytes go in the request:
// the platforms' file URLs need the bot's credentials, and the model's
// servers must never get those).
func userMessage(m llm.Message) sdk.ChatCompletionMessageParamUnion {
	text := llm.UserText(m)
	if len(m.Images) == 0 {
		return sdk.UserMessage(text)
	}
	parts := make([]sdk.ChatCompletionContentPartUnionParam, 0, 1+len(m.Images))
	if text != "" {
		parts = append(parts, sdk.TextContentPart(text))
	}
	for _, img := range m.Images {
		if len(img.Data) == 0 {
			// Its bytes are gone (see llm.Image.Data): say it was there.
			parts = append(parts, sdk.TextContentPart(img.Placeholder("no longer available")))
			continue
		}
		parts = append(parts, sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{
			URL: dataURL(img),
			// auto lets the model pick low detail for small images; the
			// agent already scaled large ones down to what high detail uses.
			Detail: "auto",
		}))
	}
	return sdk.UserMessage(parts)
}

// dataURL is img as a data: URL, "data:image/png;base64,…".
func dataURL(img llm.Image) string {
	const mid = ";base64,"
	b := make([]byte, 0, len("data:")+len(img.MIME)+len(mid)+base64.StdEncoding.EncodedLen(len(img.Data)))
	b = append(b, "data:"...)
	b = append(b, img.MIME...)
	b = append(b, mid...)
	b = base64.StdEncoding.AppendEncode(b, img.Data)
	return string(b)
}
