package llmtest

import (
	"encoding/base64"
	"strings"
)

// Image is one image part of a request, in either protocol: an OpenAI
// image_url part (a data URL, or a plain URL) or an Anthropic image block
// (base64 or url source), with where it stood.
type Image struct {
	// Message is the index in the request's messages array (OpenAI's
	// system message counts; Anthropic's system is not a message), Part
	// the index in that message's content.
	Message, Part int
	Role          string // the message's role
	MIME          string // the declared media type
	// Data are the decoded bytes of an inline image; nil for a URL.
	Data []byte
	// URL is a non-data image URL; "" for inline bytes.
	URL string
	// Detail is OpenAI's detail ("auto", "low", "high"); "" otherwise.
	Detail string
	// Problem says why an inline image could not be read (bad base64, a
	// malformed data URL): a real provider answers that with a 400.
	Problem string
	// Before is the text of the message's content parts before this
	// image, joined: what the model reads before it sees the picture.
	Before string
}

// Images returns every image part of the request, in order.
func (r Request) Images() []Image {
	msgs, _ := r.JSON["messages"].([]any)
	var out []Image
	for i, raw := range msgs {
		m, _ := raw.(map[string]any)
		role, _ := m["role"].(string)
		parts, _ := m["content"].([]any)
		var before strings.Builder
		for j, rawPart := range parts {
			p, _ := rawPart.(map[string]any)
			switch p["type"] {
			case "text":
				s, _ := p["text"].(string)
				before.WriteString(s)
			case "image_url":
				img := openAIImage(p)
				img.Message, img.Part, img.Role, img.Before = i, j, role, before.String()
				out = append(out, img)
			case "image":
				img := anthropicImage(p)
				img.Message, img.Part, img.Role, img.Before = i, j, role, before.String()
				out = append(out, img)
			}
		}
	}
	return out
}

// openAIImage reads {"type":"image_url","image_url":{"url":…,"detail":…}}.
func openAIImage(p map[string]any) Image {
	iu, _ := p["image_url"].(map[string]any)
	u, _ := iu["url"].(string)
	detail, _ := iu["detail"].(string)
	img := Image{Detail: detail}
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		img.URL = u
		return img
	}
	meta, data, ok := strings.Cut(rest, ",")
	mime, isBase64 := strings.CutSuffix(meta, ";base64")
	img.MIME = mime
	switch {
	case !ok:
		img.Problem = "a data URL without a comma"
	case !isBase64:
		img.Problem = "a data URL that is not base64"
	default:
		img.Data, img.Problem = decode64(data)
	}
	return img
}

// anthropicImage reads {"type":"image","source":{"type":"base64",
// "media_type":…,"data":…}} or a url source.
func anthropicImage(p map[string]any) Image {
	src, _ := p["source"].(map[string]any)
	var img Image
	img.MIME, _ = src["media_type"].(string)
	switch src["type"] {
	case "base64":
		data, _ := src["data"].(string)
		img.Data, img.Problem = decode64(data)
	case "url":
		img.URL, _ = src["url"].(string)
	default:
		img.Problem = "an image source that is neither base64 nor url"
	}
	return img
}

func decode64(s string) ([]byte, string) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, "bad base64: " + err.Error()
	}
	return b, ""
}
