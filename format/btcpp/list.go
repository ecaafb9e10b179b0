package btcpp

// Lists: a port a TreeNodesModel declares std::vector<T> (T a number
// type, std::string or bool) holds a list, which BT.CPP writes with its
// elements separated by ';' or, in recent releases, as "json:" and a JSON
// array.

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/arborbt/arbor/format/internal/conv"
)

// msvcTag is the "class " or "struct " MSVC writes before type names.
var msvcTag = regexp.MustCompile(`\b(class|struct)\s+`)

// basicString is std::string as the demangled name of a std::vector's
// element spells it.
var basicString = regexp.MustCompile(`^(std::)?(__cxx11::|__1::)?basic_string\s*<\s*char\s*[,>]`)

// vectorOf reports whether a BT.CPP port type is a std::vector<T> of
// numbers, strings or booleans, and T's kind. It takes the spellings
// BT.CPP writes in a TreeNodesModel (the demangled type: with GCC
// "std::vector<double, std::allocator<double> >", with libc++
// "std::__1::vector<...>", with MSVC "class std::vector<...>") and the
// short ones people write ("std::vector<std::string>").
func vectorOf(t string) (kind, bool) {
	t = strings.TrimSpace(msvcTag.ReplaceAllString(t, ""))
	for _, ns := range []string{"std::__1::", "std::"} {
		if rest, ok := strings.CutPrefix(t, ns); ok {
			t = rest
			break
		}
	}
	rest, ok := strings.CutPrefix(t, "vector")
	rest = strings.TrimSpace(rest)
	if !ok || len(rest) < 2 || rest[0] != '<' || rest[len(rest)-1] != '>' {
		return kUntyped, false
	}
	// The element type, and the allocator GCC, libc++ and MSVC name.
	args := rest[1 : len(rest)-1]
	elem, alloc := args, ""
	depth := 0
scan:
	for i, c := range args {
		switch c {
		case '<':
			depth++
		case '>':
			depth--
		case ',':
			if depth == 0 {
				elem, alloc = args[:i], args[i+1:]
				break scan
			}
		}
	}
	if alloc != "" && !strings.Contains(alloc, "allocator") {
		return kUntyped, false
	}
	elem = strings.TrimSpace(elem)
	if strings.Contains(elem, "<") && !basicString.MatchString(elem) {
		// A vector of vectors, of pairs, ...: not a list of scalars.
		return kUntyped, false
	}
	switch k := kindOfType(elem); k {
	case kNumber, kBool, kString:
		return k, true
	}
	return kUntyped, false
}

// list converts the value of a std::vector<T> port (elem is T's kind) as
// BT.CPP reads one: elements separated by ';' ("A;B;C"; a final ';' ends
// the list, so "" is the empty list and "A;;" is A and ""), or "json:"
// and a JSON array. Numbers and booleans are read as in a port of type T
// (numbers around spaces); strings are kept as written.
func (l *loader) list(elem kind, raw, port, id, path string, line int) ([]any, bool) {
	w := l.where(l.file)
	bad := func(form string, i, n int, v any) ([]any, bool) {
		want := "a number"
		switch elem {
		case kBool:
			want = "true or false"
		case kString:
			want = "a string"
		}
		l.el.Add(path, id, line, "port %q (a list: %s): element %d of %d, %s, is not %s%s", port, form, i+1, n, elemText(v), want, w)
		return nil, false
	}
	if text, ok := strings.CutPrefix(raw, "json:"); ok {
		// Recent BT.CPP 4 releases read a std::vector from JSON too.
		var elems []any
		if err := json.Unmarshal([]byte(text), &elems); err != nil || elems == nil {
			l.el.Add(path, id, line, "port %q (a list): after \"json:\" want a JSON array, got %q%s", port, text, w)
			return nil, false
		}
		for i, e := range elems {
			ok := false
			switch elem {
			case kNumber:
				_, ok = e.(float64)
			case kBool:
				_, ok = e.(bool)
			case kString:
				_, ok = e.(string)
			}
			if !ok {
				return bad("a JSON array", i, len(elems), e)
			}
		}
		return elems, true
	}
	parts := strings.Split(raw, ";")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	out := make([]any, len(parts))
	for i, p := range parts {
		switch elem {
		case kNumber:
			f, ok := conv.ParseNumber(strings.TrimSpace(p))
			if !ok {
				return bad("elements separated by ';'", i, len(parts), p)
			}
			out[i] = f
		case kBool:
			b, ok := parseBool(p)
			if !ok {
				return bad("elements separated by ';'", i, len(parts), p)
			}
			out[i] = b
		default:
			out[i] = p
		}
	}
	return out, true
}

// elemText shows a list element in messages: a string quoted, another
// JSON value as JSON.
func elemText(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
