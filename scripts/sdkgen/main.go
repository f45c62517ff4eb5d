// sdkgen writes the Python and Go SDKs of the package from schema.json with Pulumi's own code
// generators (github.com/pulumi/pulumi/pkg/v3/codegen/python and .../codegen/go), pinned in go.mod
// to the engine's version. It writes nothing of its own: every file comes from GeneratePackage.
//
// Usage: sdkgen SCHEMA_JSON OUT_DIR   (writes OUT_DIR/python and OUT_DIR/go, replacing them)
//
// The schema is read strictly (strict.go): a key Pulumi's schema package does not know fails here,
// where Pulumi itself would drop it silently and every SDK and the registry would miss what it says.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// tool is the name the generators write into each file's "do not edit" header.
const tool = "sdkgen (scripts/generate-sdks)"

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: sdkgen SCHEMA_JSON OUT_DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintf(os.Stderr, "sdkgen: %v\n", err)
		os.Exit(1)
	}
}

func run(schemaPath, outDir string) error {
	text, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	spec, err := readStrictly(text)
	if err != nil {
		return fmt.Errorf("%s: %w", schemaPath, err)
	}
	// Each generator binds the package anew: ImportLanguages keeps the first language importers it
	// is given, so one bound package cannot serve both.
	generators := []struct {
		dir      string
		generate func(*schema.Package, schema.ReferenceLoader) (map[string][]byte, error)
	}{
		{"python", func(pkg *schema.Package, loader schema.ReferenceLoader) (map[string][]byte, error) {
			return python.GeneratePackage(tool, pkg, nil, loader)
		}},
		{"go", func(pkg *schema.Package, _ schema.ReferenceLoader) (map[string][]byte, error) {
			return gogen.GeneratePackage(tool, pkg, nil)
		}},
	}
	for _, generator := range generators {
		loader := schema.NewPluginLoader(nil)
		pkg, diags, err := schema.BindSpec(spec, loader, schema.ValidationOptions{})
		if err != nil {
			return fmt.Errorf("binding %s: %w", schemaPath, err)
		}
		if diags.HasErrors() {
			return fmt.Errorf("binding %s: %v", schemaPath, diags)
		}
		files, err := generator.generate(pkg, loader)
		if err != nil {
			return fmt.Errorf("generating the %s SDK: %w", generator.dir, err)
		}
		if err := writeTree(filepath.Join(outDir, generator.dir), files); err != nil {
			return err
		}
	}
	return nil
}

// writeTree replaces dir with exactly the generated files.
func writeTree(dir string, files map[string][]byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			return err
		}
	}
	return nil
}
