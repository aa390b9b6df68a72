package shell

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkWorkspaceArchive measures what keeping a conversation's shell
// workspace in the database would cost — the alternative to the shared
// volume docs/replicas.md chose ("Shell workspaces"): archiving the
// workspace (tar + gzip) at the end of every turn and unpacking it at the
// next replica. The workspace is a build tree's shape: 1,000 source files
// of 20 KB and 20 binaries of 1 MB (40 MB, a fifth of the 200 MB
// tools.shell.workspace_mb allows). It reports the archive's size and
// the milliseconds to pack and to unpack it; the shared volume costs a
// turn neither.
//
//	go test -run '^$' -bench WorkspaceArchive -benchtime 5x ./agent/tools/shell/
func BenchmarkWorkspaceArchive(b *testing.B) {
	src := b.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("func return if err nil package import type struct string int for range go defer")
	for i := range 1000 {
		var sb strings.Builder
		for sb.Len() < 20<<10 {
			sb.WriteString(words[rng.IntN(len(words))] + " ")
		}
		writeBenchFile(b, filepath.Join(src, "src", fmt.Sprintf("d%02d", i%40), fmt.Sprintf("f%04d.go", i)), []byte(sb.String()))
	}
	for i := range 20 {
		bin := make([]byte, 1<<20)
		for j := range bin {
			bin[j] = byte(rng.Uint32())
		}
		writeBenchFile(b, filepath.Join(src, "bin", fmt.Sprintf("b%02d", i)), bin)
	}
	archive := filepath.Join(b.TempDir(), "workspace.tar.gz")
	var packed, unpacked float64
	var size int64
	for b.Loop() {
		f, err := os.Create(archive)
		if err != nil {
			b.Fatal(err)
		}
		start := b.Elapsed()
		if err := packWorkspace(f, src); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		packed += float64(b.Elapsed() - start)
		st, _ := os.Stat(archive)
		size = st.Size()
		dst := b.TempDir()
		start = b.Elapsed()
		if err := unpackWorkspace(archive, dst); err != nil {
			b.Fatal(err)
		}
		unpacked += float64(b.Elapsed() - start)
	}
	n := float64(b.N) * 1e6
	b.ReportMetric(packed/n, "pack-ms")
	b.ReportMetric(unpacked/n, "unpack-ms")
	b.ReportMetric(float64(size)/(1<<20), "archive-MB")
}

func writeBenchFile(b *testing.B, path string, data []byte) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
}

// packWorkspace writes dir as a gzipped tar to w.
func packWorkspace(w io.Writer, dir string) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	if err := tw.AddFS(os.DirFS(dir)); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// unpackWorkspace extracts the gzipped tar at path into dir.
func unpackWorkspace(path, dir string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(h.Name, "/")
		if !fs.ValidPath(name) {
			return fmt.Errorf("bad name %q", h.Name)
		}
		out := filepath.Join(dir, name)
		if h.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, tr); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
}
