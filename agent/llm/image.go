package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Image is a picture given to the model: a person's attachment, or what a
// tool returned. It is sent as it is — checked, decoded and scaled to
// what models accept beforehand (agent/media) — as OpenAI image_url parts
// (data URLs) and Anthropic image blocks, after the message's text.
//
// Only user messages carry images to a provider. A tool message may hold
// images too (a tool's pictures, kept with its result in the
// transcript); the agent moves them into a user message right after the
// tool results before it sends the request, because many models accept
// no images in the tool-result channel.
type Image struct {
	// MIME is the encoded type: image/png, image/jpeg, image/gif or
	// image/webp, the four both providers take.
	MIME string `json:"mime"`
	// Data are the encoded bytes. The store keeps them apart from the
	// message, once per session and content (SHA256), so a transcript
	// row stays small; an image whose bytes are gone (nil Data) is sent
	// as its Placeholder.
	Data []byte `json:"data,omitempty"`
	// SHA256 is the hex SHA-256 of Data: the image's identity in the
	// store (ImageHash fills it).
	SHA256 string `json:"sha256,omitempty"`
	// Width and Height are in pixels, as sent: what the token estimate
	// counts.
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
	// Name is the file name the person gave it, or the tool that made
	// it, for placeholders and for people.
	Name string `json:"name,omitempty"`
}

// ImageHash returns img with SHA256 set from its Data.
func ImageHash(img Image) Image {
	if img.SHA256 == "" && len(img.Data) > 0 {
		sum := sha256.Sum256(img.Data)
		img.SHA256 = hex.EncodeToString(sum[:])
	}
	return img
}

// Placeholder is the line that stands for img where the image itself is
// not sent: to a model that cannot see, after compaction cut it, or when
// its bytes are gone. why says which, in a few words.
func (img Image) Placeholder(why string) string {
	name := img.Name
	if name == "" {
		name = "an image"
	}
	size := ""
	if img.Width > 0 && img.Height > 0 {
		size = fmt.Sprintf(", %d×%d", img.Width, img.Height)
	}
	return fmt.Sprintf("[image %s%s: %s]", name, size, why)
}

// WithoutImages returns m with each of its images as its placeholder line
// (Placeholder) after its text.
func (m Message) WithoutImages(why string) Message {
	if len(m.Images) == 0 {
		return m
	}
	lines := make([]string, 0, 1+len(m.Images))
	if m.Text != "" {
		lines = append(lines, m.Text)
	}
	for _, img := range m.Images {
		lines = append(lines, img.Placeholder(why))
	}
	m.Text, m.Images = strings.Join(lines, "\n"), nil
	return m
}

// WithoutImages returns msgs with the images of msgs[:end] as placeholder
// lines (Message.WithoutImages); msgs itself is not changed, and is
// returned as it is when there is nothing to replace.
func WithoutImages(msgs []Message, end int, why string) []Message {
	var out []Message
	for i, m := range msgs[:end] {
		if len(m.Images) == 0 {
			continue
		}
		if out == nil {
			out = append([]Message(nil), msgs...)
		}
		out[i] = m.WithoutImages(why)
	}
	if out == nil {
		return msgs
	}
	return out
}
