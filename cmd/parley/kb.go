package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/agent/tools"
	"github.com/parleybot/parley/agent/tools/webfetch"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// `parley kb …`: the operator's side of the knowledge base
// (docs/knowledge-base.md). It needs the database and, for search by
// meaning, the embeddings endpoint; not a chat model.

func newKBCmd(e *environment, load func() (*config.Config, error)) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kb",
		Short: "Manage the knowledge base: add, ls, rm, search, eval",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newKBAddCmd(e, load), newKBLsCmd(e, load), newKBRmCmd(e, load), newKBSearchCmd(e, load), newKBEvalCmd(e, load))
	return cmd
}

// withKB opens the database and the knowledge base for one command.
func withKB(ctx context.Context, e *environment, load func() (*config.Config, error), fn func(*kb.Base, *config.Config) error) error {
	cfg, err := load()
	if err != nil {
		return err
	}
	db, err := openStore(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	defer db.Close()
	base, err := knowledgeBase(cfg, db, cfg.Log.Logger(e.stderr, slog.LevelWarn))
	if err != nil {
		return err
	}
	if err := base.Ready(); err != nil {
		return err
	}
	return fn(base, cfg)
}

func newKBAddCmd(e *environment, load func() (*config.Config, error)) *cobra.Command {
	var scope string
	cmd := &cobra.Command{
		Use:   "add [--scope S] PATH|URL…",
		Short: "Add files, whole folders or web pages (default scope: operator, visible everywhere)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := bot.ParseScope(scope)
			if err != nil {
				return err
			}
			if s.Agent != "" {
				return fmt.Errorf("scope %q: documents belong to the operator, a place or a person, not to an agent; agents.%s.kb.scopes chooses what it searches", scope, s.Agent)
			}
			return withKB(cmd.Context(), e, load, func(b *kb.Base, _ *config.Config) error {
				failed := 0
				for _, arg := range args {
					var events []kb.FileEvent
					if isURL(arg) {
						ing, err := b.AddURL(cmd.Context(), kb.Document{Scope: s.Key(), AddedBy: "operator", AddedByName: "operator"}, arg)
						events = []kb.FileEvent{{Source: arg, Outcome: ing.Outcome, Err: err}}
					} else {
						r, err := b.AddPath(cmd.Context(), s.Key(), "operator", arg)
						if err != nil {
							return err
						}
						events = r.Events
					}
					for _, ev := range events {
						if ev.Err != nil {
							failed++
							fmt.Fprintf(e.stdout, "skipped   %s: %v\n", ev.Source, ev.Err)
							continue
						}
						fmt.Fprintf(e.stdout, "%-9s %s\n", ev.Outcome, ev.Source)
					}
				}
				if err := embedNow(cmd.Context(), e.stdout, b); err != nil {
					fmt.Fprintf(e.stdout, "not embedded yet (Parley embeds them when it runs): %v\n", err)
				}
				if failed > 0 {
					return exitError{code: 1}
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&scope, "scope", "operator", "scope: operator, space:<platform>:<id> or person:<platform>:<user id>")
	return cmd
}

// embedNow embeds what is waiting, when search by meaning is on, so that
// `parley kb search` finds by meaning right after `parley kb add`.
func embedNow(ctx context.Context, w io.Writer, b *kb.Base) error {
	if !b.Hybrid() {
		return nil
	}
	total := 0
	for {
		n, err := b.EmbedPending(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
		total += n
	}
	if total > 0 {
		fmt.Fprintf(w, "embedded  %d passages\n", total)
	}
	return nil
}

func isURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

func newKBLsCmd(e *environment, load func() (*config.Config, error)) *cobra.Command {
	var scope string
	cmd := &cobra.Command{
		Use:   "ls [--scope S]",
		Short: "List documents (every scope unless --scope is given)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withKB(cmd.Context(), e, load, func(b *kb.Base, _ *config.Config) error {
				var docs []kb.Document
				var err error
				if scope == "" {
					docs, err = b.ListAll(cmd.Context())
				} else if s, perr := bot.ParseScope(scope); perr != nil {
					return perr
				} else {
					docs, err = b.List(cmd.Context(), []string{s.Key()})
				}
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tSCOPE\tSOURCE\tKIND\tSIZE\tPASSAGES\tADDED BY\tADDED")
				for _, d := range docs {
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", d.ID, d.Scope, d.Source, d.Kind, kb.Size(d.Bytes), d.Chunks,
						d.AddedByName, d.AddedAt.Local().Format("2006-01-02 15:04"))
				}
				tw.Flush()
				fmt.Fprintf(e.stdout, "%d document(s); %s\n", len(docs), b.Status())
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&scope, "scope", "", "only this scope")
	return cmd
}

func newKBRmCmd(e *environment, load func() (*config.Config, error)) *cobra.Command {
	return &cobra.Command{
		Use:   "rm ID…",
		Short: "Remove documents by the IDs `parley kb ls` shows",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withKB(cmd.Context(), e, load, func(b *kb.Base, _ *config.Config) error {
				for _, arg := range args {
					id, err := strconv.ParseInt(arg, 10, 64)
					if err != nil {
						return fmt.Errorf("%q is not a document ID (see parley kb ls)", arg)
					}
					d, ok, err := b.Document(cmd.Context(), id)
					if err != nil {
						return err
					}
					if !ok {
						return fmt.Errorf("no document %d (see parley kb ls)", id)
					}
					if err := b.Forget(cmd.Context(), id); err != nil {
						return err
					}
					fmt.Fprintf(e.stdout, "removed   %d %s (%s)\n", d.ID, d.Source, d.Scope)
				}
				return nil
			})
		},
	}
}

func newKBSearchCmd(e *environment, load func() (*config.Config, error)) *cobra.Command {
	var scopes []string
	var k int
	cmd := &cobra.Command{
		Use:   `search [--scope S]… [-k N] "query"`,
		Short: "Print the passages a search finds, ranked, as source:start-end with scores",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			keys := make([]string, 0, len(scopes))
			for _, s := range scopes {
				sc, err := bot.ParseScope(s)
				if err != nil {
					return err
				}
				keys = append(keys, sc.Key())
			}
			return withKB(cmd.Context(), e, load, func(b *kb.Base, _ *config.Config) error {
				results, err := b.Search(cmd.Context(), keys, args[0], k)
				if err != nil {
					return err
				}
				fmt.Fprintln(e.stdout, tools.FormatPassages(results))
				return nil
			})
		},
	}
	cmd.Flags().StringSliceVar(&scopes, "scope", []string{"operator"}, "scopes to search (repeat, or comma-separated)")
	cmd.Flags().IntVarP(&k, "k", "k", 0, "how many passages (default kb.top_k)")
	return cmd
}

// knowledgeBase builds the knowledge base over db from cfg: keyword-only,
// or hybrid with kb.embedding_model through the OpenAI-compatible
// endpoint of its provider (llm.openai, or a named provider of kind
// openai).
func knowledgeBase(cfg *config.Config, db backend, logger *slog.Logger) (*kb.Base, error) {
	c := kb.Config{
		Store:         flooredKB{Store: db, floor: dataFloor(cfg)},
		Chunking:      kb.ChunkOptions{Lines: cfg.KB.ChunkLines, Overlap: cfg.KB.ChunkOverlap, MaxChars: cfg.KB.ChunkChars},
		MaxFileBytes:  int64(cfg.KB.MaxFileMB) << 20,
		MaxScopeBytes: int64(cfg.KB.MaxScopeMB) << 20,
		KeywordWeight: cfg.KB.KeywordWeight,
		VectorWeight:  cfg.KB.VectorWeight,
		RRFK:          cfg.KB.RRFK,
		MinScore:      cfg.KB.MinScore,
		TopK:          cfg.KB.TopK,
		Logger:        logger,
	}
	fetcher, err := documentFetcher()
	if err != nil {
		return nil, err
	}
	c.Fetcher = fetcher
	if m := cfg.KB.EmbeddingModel; m != "" {
		provider, model, _ := strings.Cut(m, "/")
		s, ok := cfg.Endpoint(provider)
		switch {
		case !ok && provider == config.ProviderOpenAI:
			return nil, errors.New("kb.embedding_model needs an OpenAI-compatible endpoint: set llm.openai.api_key (OPENAI_API_KEY) or llm.openai.base_url")
		case !ok || s.Kind != config.KindOpenAI: // refused by Load
			return nil, fmt.Errorf("kb.embedding_model %s needs a provider of kind openai", m)
		}
		c.Embedder, c.EmbeddingModel = openAIProvider(s, nil).Embedder(model), m
	}
	return kb.New(c), nil
}

// documentFetcher downloads /kb add and `parley kb add` URLs through
// web_fetch's guarded client.
func documentFetcher() (kb.Fetcher, error) {
	f, err := webfetch.NewFetcher(webfetch.Options{})
	if err != nil {
		return nil, fmt.Errorf("knowledge base fetcher: %w", err)
	}
	return docFetcher{f}, nil
}

type docFetcher struct{ f *webfetch.Fetcher }

func (d docFetcher) FetchDocument(ctx context.Context, url string, max int64) (kb.Fetched, error) {
	got, err := d.f.Fetch(ctx, url, max)
	if errors.Is(err, webfetch.ErrTooLarge) {
		return kb.Fetched{}, fmt.Errorf("%w: %w", kb.ErrTooLarge, err)
	}
	if err != nil {
		return kb.Fetched{}, err
	}
	return kb.Fetched{URL: got.URL, ContentType: got.ContentType, Body: got.Body}, nil
}

func newKBEvalCmd(e *environment, load func() (*config.Config, error)) *cobra.Command {
	var lines []int
	var k int
	cmd := &cobra.Command{
		Use:   "eval FILE",
		Short: "Score retrieval on a labelled set (recall@k, MRR), in a temporary knowledge base, with the configured search",
		Long: "Ingests the set's documents into a temporary database and reports recall@k and MRR overall, by language\n" +
			"and by kind, then each miss. With kb.embedding_model set, the search is hybrid. agent/kb/testdata/eval\n" +
			"holds a set; its README says how to write one.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := load()
			if err != nil {
				return err
			}
			set, err := kb.LoadEvalSet(args[0])
			if err != nil {
				return err
			}
			if len(lines) == 0 {
				lines = []int{cfg.KB.ChunkLines}
			}
			tmp, err := os.MkdirTemp("", "parley-kb-eval")
			if err != nil {
				return err
			}
			defer os.RemoveAll(tmp)
			for i, n := range lines {
				c := *cfg
				c.DataDir = filepath.Join(tmp, strconv.Itoa(i))
				c.KB.ChunkLines, c.KB.ChunkOverlap = n, min(cfg.KB.ChunkOverlap, n/4)
				if err := evalOnce(cmd.Context(), e.stdout, &c, set, k); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().IntSliceVar(&lines, "chunk-lines", nil, "passage sizes to compare, e.g. 20,40,80 (default kb.chunk_lines)")
	cmd.Flags().IntVarP(&k, "k", "k", 5, "recall@k and MRR within the top k")
	return cmd
}

// evalOnce scores one configuration.
func evalOnce(ctx context.Context, w io.Writer, cfg *config.Config, set kb.EvalSet, k int) error {
	db, err := openStore(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	defer db.Close()
	b, err := knowledgeBase(cfg, db, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	if err := b.Ready(); err != nil {
		return err
	}
	if err := b.IngestEvalSet(ctx, set, bot.OperatorScope().Key()); err != nil {
		return err
	}
	r, err := kb.Evaluate(ctx, b.In(bot.OperatorScope().Key()), set, k)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%d-line passages, %s\n", cfg.KB.ChunkLines, b.Status())
	r.Format(w)
	fmt.Fprintln(w)
	return nil
}
