package media

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"testing"
)

// withExif inserts an APP1 EXIF segment saying orientation o (in byte
// order bo) after a JPEG's SOI marker.
func withExif(t testing.TB, jpg []byte, o uint16, bo binary.ByteOrder) []byte {
	t.Helper()
	var tiff bytes.Buffer
	if bo == binary.LittleEndian {
		tiff.WriteString("II*\x00")
	} else {
		tiff.WriteString("MM\x00*")
	}
	binary.Write(&tiff, bo, uint32(8)) // IFD0 right after the header
	binary.Write(&tiff, bo, uint16(2)) // two entries: another tag, then Orientation
	for _, e := range [][3]uint16{{0x010F, 2, 0}, {0x0112, 3, o}} {
		binary.Write(&tiff, bo, e[0])
		binary.Write(&tiff, bo, e[1])
		binary.Write(&tiff, bo, uint32(1))
		binary.Write(&tiff, bo, e[2])
		binary.Write(&tiff, bo, uint16(0))
	}
	binary.Write(&tiff, bo, uint32(0)) // no next IFD
	seg := append([]byte("Exif\x00\x00"), tiff.Bytes()...)
	var out bytes.Buffer
	out.Write(jpg[:2])
	out.Write([]byte{0xFF, 0xE1})
	binary.Write(&out, binary.BigEndian, uint16(len(seg)+2))
	out.Write(seg)
	out.Write(jpg[2:])
	return out.Bytes()
}

// markedPhoto is a w×h JPEG, blue, with a red square in its top-left
// corner: where the square ends up shows how the picture was turned.
func markedPhoto(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	q := min(w, h) / 4
	for y := range h {
		for x := range w {
			c := color.RGBA{0, 0, 255, 255}
			if x < q && y < q {
				c = color.RGBA{255, 0, 0, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// redCorner names the corner of img that is red.
func redCorner(img image.Image) string {
	b := img.Bounds()
	in := 4 // a few pixels inside, clear of JPEG's edge blur
	corners := map[string]image.Point{
		"top-left": {b.Min.X + in, b.Min.Y + in}, "top-right": {b.Max.X - 1 - in, b.Min.Y + in},
		"bottom-left": {b.Min.X + in, b.Max.Y - 1 - in}, "bottom-right": {b.Max.X - 1 - in, b.Max.Y - 1 - in},
	}
	found := ""
	for name, p := range corners {
		r, g, bl, _ := img.At(p.X, p.Y).RGBA()
		if r > 0xC000 && g < 0x4000 && bl < 0x4000 {
			if found != "" {
				return "several"
			}
			found = name
		}
	}
	return found
}

// TestPrepareTurnsPhotos: a JPEG whose EXIF says to turn it reaches the
// model turned, whether or not it is also scaled down, with its sides
// swapped for the quarter turns; one without the tag goes as it is.
func TestPrepareTurnsPhotos(t *testing.T) {
	t.Parallel()
	tests := []struct {
		orientation uint16
		corner      string // where the sensor's top-left corner is shown
		swapped     bool
	}{
		{1, "top-left", false},
		{2, "top-right", false},
		{3, "bottom-right", false},
		{4, "bottom-left", false},
		{5, "top-left", true},
		{6, "top-right", true},
		{7, "bottom-right", true},
		{8, "bottom-left", true},
	}
	for _, tt := range tests {
		for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
			for _, edge := range []int{400, 200} { // as it is, and scaled down
				data := withExif(t, markedPhoto(t, 320, 160), tt.orientation, bo)
				img, err := Prepare(data, "photo.jpg", Limits{MaxEdge: edge})
				if err != nil {
					t.Fatalf("orientation %d: %v", tt.orientation, err)
				}
				if tt.orientation == 1 && edge == 400 && !bytes.Equal(img.Data, data) {
					t.Errorf("an upright photo that fits was re-encoded")
				}
				got, _, err := image.Decode(bytes.NewReader(img.Data))
				if err != nil {
					t.Fatal(err)
				}
				long, short := min(320, edge), min(320, edge)/2
				w, h := long, short
				if tt.swapped {
					w, h = short, long
				}
				if b := got.Bounds(); b.Dx() != w || b.Dy() != h || img.Width != w || img.Height != h {
					t.Errorf("orientation %d, %v, edge %d: %d×%d (says %d×%d), want %d×%d",
						tt.orientation, bo, edge, b.Dx(), b.Dy(), img.Width, img.Height, w, h)
				}
				if c := redCorner(got); c != tt.corner {
					t.Errorf("orientation %d, %v, edge %d: the mark is %s, want %s", tt.orientation, bo, edge, c, tt.corner)
				}
			}
		}
	}
}

func TestJPEGOrientationBadInput(t *testing.T) {
	t.Parallel()
	good := withExif(t, markedPhoto(t, 16, 16), 6, binary.BigEndian)
	tests := []struct {
		name string
		data []byte
		want int
	}{
		{"good", good, 6},
		{"empty", nil, 1},
		{"not a JPEG", []byte("\x89PNG\r\n\x1a\n"), 1},
		{"segment past the end", good[:20], 1},
		{"orientation 9", withExif(t, markedPhoto(t, 16, 16), 9, binary.BigEndian), 1},
		{"no EXIF", markedPhoto(t, 16, 16), 1},
	}
	for _, tt := range tests {
		if got := jpegOrientation(tt.data); got != tt.want {
			t.Errorf("%s: jpegOrientation = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func FuzzJPEGOrientation(f *testing.F) {
	f.Add(withExif(f, markedPhoto(f, 8, 8), 6, binary.LittleEndian))
	f.Add(withExif(f, markedPhoto(f, 8, 8), 3, binary.BigEndian))
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x08, 'E', 'x', 'i', 'f', 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if o := jpegOrientation(data); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
	})
}
