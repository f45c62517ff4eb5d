package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// languageInfo is the type each package-level language section is read into, as its generator does.
// C#'s generator is in another module (pulumi-dotnet), not built here: its section is only named.
var languageInfo = map[string]func() any{
	"python": func() any { return &python.PackageInfo{} },
	"go":     func() any { return &gogen.GoPackageInfo{} },
	"nodejs": func() any { return &nodejs.NodePackageInfo{} },
	"csharp": nil,
}

// readStrictly reads a package schema and fails on any key that Pulumi's schema types do not read:
// the JSON is decoded into schema.PackageSpec (and each language section into its generator's
// PackageInfo), written back, and every key of the original must still be there. A round trip, not
// only json's DisallowUnknownFields, because some spec types (FunctionSpec) decode themselves and
// ignore what they do not know.
func readStrictly(text []byte) (schema.PackageSpec, error) {
	var spec schema.PackageSpec
	if err := json.Unmarshal(text, &spec); err != nil {
		return spec, err
	}
	unknown, err := unknownKeys(text, &spec, "")
	if err != nil {
		return spec, err
	}
	for language, raw := range spec.Language {
		newInfo, known := languageInfo[language]
		if !known {
			unknown = append(unknown, "language."+language)
		}
		if newInfo == nil {
			continue
		}
		keys, err := unknownKeys(raw, newInfo(), "language."+language+".")
		if err != nil {
			return spec, fmt.Errorf("language.%s: %w", language, err)
		}
		unknown = append(unknown, keys...)
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return spec, fmt.Errorf("keys Pulumi's schema does not know (it would drop them): %s", strings.Join(unknown, ", "))
	}
	return spec, nil
}

// unknownKeys decodes text into target, encodes it again and lists the keys of text that are lost.
func unknownKeys(text []byte, target any, prefix string) ([]string, error) {
	if err := json.Unmarshal(text, target); err != nil {
		return nil, err
	}
	again, err := json.Marshal(target)
	if err != nil {
		return nil, err
	}
	var original, kept any
	if err := decodeNumbers(text, &original); err != nil {
		return nil, err
	}
	if err := decodeNumbers(again, &kept); err != nil {
		return nil, err
	}
	var lost []string
	collectLost(original, kept, strings.TrimSuffix(prefix, "."), &lost)
	return lost, nil
}

func decodeNumbers(text []byte, value *any) error {
	decoder := json.NewDecoder(bytes.NewReader(text))
	decoder.UseNumber()
	return decoder.Decode(value)
}

// collectLost appends the path of every object key in original that kept does not have. A key whose
// value is empty (false, "", 0, [], {}) may be dropped by `omitempty` and is not counted.
func collectLost(original, kept any, path string, lost *[]string) {
	switch value := original.(type) {
	case map[string]any:
		keptObject, _ := kept.(map[string]any)
		for key, item := range value {
			at := key
			if path != "" {
				at = path + "." + key
			}
			keptItem, present := keptObject[key]
			if !present {
				if !isEmpty(item) {
					*lost = append(*lost, at)
				}
				continue
			}
			collectLost(item, keptItem, at, lost)
		}
	case []any:
		keptList, _ := kept.([]any)
		for index, item := range value {
			if index < len(keptList) {
				collectLost(item, keptList[index], fmt.Sprintf("%s[%d]", path, index), lost)
			}
		}
	}
}

func isEmpty(value any) bool {
	switch v := value.(type) {
	case nil:
		return true
	case json.Number:
		return v.String() == "0"
	default:
		return reflect.ValueOf(value).IsZero() || (reflect.ValueOf(value).Kind() == reflect.Map || reflect.ValueOf(value).Kind() == reflect.Slice) && reflect.ValueOf(value).Len() == 0
	}
}
