// Command configdocs writes the config reference, docs/reference/config:
// every key of the training configs (one page per model family) and of
// the pipeline run config, with its type, its default from the code's
// default config, its bounds and its meaning from the doc comment of the
// struct field that holds it. It reads the comments from the source, so
// it runs from the repository's root:
//
//	go run ./scripts/configdocs --out docs/reference/config
//
// A key no comment explains is an error naming the field to comment.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
)

func main() {
	out := flag.String("out", referenceDir, "folder to write the pages into")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/configdocs [--out FOLDER]")
		os.Exit(2)
	}
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "configdocs:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	mod, err := os.ReadFile("go.mod")
	if err != nil || !bytes.HasPrefix(mod, []byte("module "+module+"\n")) {
		return fmt.Errorf("run it from the repository's root (the folder of %s's go.mod): it reads the source's comments", module)
	}
	return write(".", out)
}
