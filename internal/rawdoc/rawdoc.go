// Package rawdoc parses JSON and YAML documents into positioned, ordered
// values. Both Arbor tree files and scenario files are read through it, so
// they share the same limits (size, depth), the same duplicate-key check and
// the same line numbers in error messages.
package rawdoc

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Kind is the kind of a parsed value.
type Kind uint8

// The kinds of parsed values.
const (
	Null Kind = iota
	Bool
	Number
	String
	List
	Object
)

func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Number:
		return "number"
	case String:
		return "string"
	case List:
		return "list"
	case Object:
		return "object"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one parsed value with the line it starts on (1-based; 0 when
// unknown).
type Value struct {
	Kind   Kind
	Bool   bool
	Num    float64
	Str    string
	List   []*Value
	Fields []Field // object members in document order
	// Dups are members whose key repeats an earlier one (the first
	// occurrence is in Fields). Parsers keep them so that the reader can
	// report them with its own context; see FirstDuplicate.
	Dups []Field
	Line int
}

// FirstDuplicate returns the first repeated key in v or below it, or nil.
// Members named in skip (at any depth) are not searched.
func FirstDuplicate(v *Value, skip ...string) *Field {
	if v == nil {
		return nil
	}
	if len(v.Dups) > 0 {
		return &v.Dups[0]
	}
	for _, e := range v.List {
		if d := FirstDuplicate(e, skip...); d != nil {
			return d
		}
	}
	for _, f := range v.Fields {
		if slices.Contains(skip, f.Key) {
			continue
		}
		if d := FirstDuplicate(f.Val, skip...); d != nil {
			return d
		}
	}
	return nil
}

// DuplicateError returns the error for a repeated key.
func DuplicateError(f *Field) error {
	return &SyntaxError{Line: f.Line, Msg: fmt.Sprintf("duplicate key %q", f.Key)}
}

// Field is one member of an object.
type Field struct {
	Key  string
	Line int
	Val  *Value
}

// Get returns the member named key, or nil.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := range v.Fields {
		if v.Fields[i].Key == key {
			return v.Fields[i].Val
		}
	}
	return nil
}

// Describe names the value for error messages: a string or number with
// its value, null, a boolean, or its kind.
func (v *Value) Describe() string {
	switch v.Kind {
	case String:
		return fmt.Sprintf("%q", v.Str)
	case Null:
		return "null"
	case Number:
		return fmt.Sprintf("the number %v", v.Num)
	case Bool:
		return fmt.Sprintf("%v", v.Bool)
	case Object:
		return "an object"
	case List:
		if len(v.List) == 0 {
			return "an empty list"
		}
	}
	return "a " + v.Kind.String()
}

// Keys returns the object's member names in document order.
func (v *Value) Keys() []string {
	keys := make([]string, len(v.Fields))
	for i, f := range v.Fields {
		keys[i] = f.Key
	}
	return keys
}

// Interface converts the value to plain Go values: nil, bool, float64,
// string, []any and map[string]any.
func (v *Value) Interface() any {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case Bool:
		return v.Bool
	case Number:
		return v.Num
	case String:
		return v.Str
	case List:
		out := make([]any, len(v.List))
		for i, e := range v.List {
			out[i] = e.Interface()
		}
		return out
	case Object:
		out := make(map[string]any, len(v.Fields))
		for _, f := range v.Fields {
			out[f.Key] = f.Val.Interface()
		}
		return out
	}
	return nil
}

// maxInterfaceDepth bounds the nesting FromInterface follows: values
// built in Go may contain themselves.
const maxInterfaceDepth = 10_000

// FromInterface converts plain Go values (as produced by encoding/json or by
// Interface) into a Value. Map members are sorted by key. Nesting deeper
// than 10,000 (a list or map that contains itself, say) is an error.
func FromInterface(x any) (*Value, error) { return fromInterface(x, 0) }

func fromInterface(x any, depth int) (*Value, error) {
	if depth > maxInterfaceDepth {
		return nil, fmt.Errorf("values nested deeper than %d (does a list or map contain itself?)", maxInterfaceDepth)
	}
	switch t := x.(type) {
	case nil:
		return &Value{Kind: Null}, nil
	case bool:
		return &Value{Kind: Bool, Bool: t}, nil
	case float64:
		return &Value{Kind: Number, Num: t}, nil
	case int:
		return &Value{Kind: Number, Num: float64(t)}, nil
	case string:
		return &Value{Kind: String, Str: t}, nil
	case []any:
		v := &Value{Kind: List, List: make([]*Value, len(t))}
		for i, e := range t {
			ev, err := fromInterface(e, depth+1)
			if err != nil {
				return nil, err
			}
			v.List[i] = ev
		}
		return v, nil
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		v := &Value{Kind: Object}
		for _, k := range keys {
			ev, err := fromInterface(t[k], depth+1)
			if err != nil {
				return nil, err
			}
			v.Fields = append(v.Fields, Field{Key: k, Val: ev})
		}
		return v, nil
	}
	return nil, fmt.Errorf("unsupported value of type %T", x)
}

// Limits bound what a parser accepts.
type Limits struct {
	MaxBytes int // whole input; 0 means DefaultMaxBytes
	MaxDepth int // nesting of lists and objects; 0 means DefaultMaxDepth
}

// Defaults of Limits.
const (
	DefaultMaxBytes = 16 << 20
	// DefaultMaxDepth bounds the nesting of lists and objects: room for
	// trees nested 256 nodes deep, each node taking a list and an object.
	DefaultMaxDepth = 2*256 + 16
)

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	return l
}

// SyntaxError is a parse error with the line it was found on.
type SyntaxError struct {
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// Parse parses data as YAML when yaml is true, else as JSON. A leading
// UTF-8 byte-order mark (written by some Windows editors) is skipped.
func Parse(data []byte, yaml bool, lim Limits) (*Value, error) {
	lim = lim.withDefaults()
	if len(data) > lim.MaxBytes {
		return nil, &SyntaxError{Msg: fmt.Sprintf("input is %d bytes, over the limit of %s", len(data), Bytes(lim.MaxBytes))}
	}
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	if yaml {
		return parseYAML(data, lim)
	}
	return parseJSON(data, lim)
}

// DecodeTree decodes a native Arbor tree document from a parsed value,
// keeping its lines and reporting its duplicate keys with node paths. The
// arbor package sets it (to a func returning *arbor.Document) so that the
// scenario runner can load the trees embedded in scenario files.
var DecodeTree func(v *Value) (any, error)

// ReadFile reads a file of at most max bytes (a larger file is an error,
// read no further than max+1 bytes).
func ReadFile(path string, max int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > max {
		return nil, fmt.Errorf("file is over the limit of %s", Bytes(max))
	}
	return data, nil
}

// Count writes a count limit for messages: as a number, and from 10,000
// up also with thousands separators, as the documentation writes it:
// "100000 (100,000)".
func Count(n int) string {
	if n < 10_000 {
		return strconv.Itoa(n)
	}
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return s + " (" + b.String() + ")"
}

// Bytes writes a size limit for messages: "16777216 bytes (16 MiB)", the
// MiB only when the size is a whole number of them.
func Bytes(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d bytes (%d MiB)", n, n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
