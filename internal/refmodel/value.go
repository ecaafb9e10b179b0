package refmodel

import (
	"math"
	"reflect"
	"strings"
)

// kind is the kind of a blackboard value (semantics §8: "Values carry their
// kind: boolean, number, string, or any other Go value").
type kind uint8

const (
	kMissing kind = iota
	kBool
	kNumber
	kString
	kOther
)

func (k kind) String() string {
	return [...]string{"missing", "boolean", "number", "string", "other"}[k]
}

// value is a blackboard value with its kind.
type value struct {
	kind kind
	b    bool
	f    float64
	s    string
	o    any // kOther: the Go value (a list, a map, a user value)
}

// valueOf converts a Go value as tree files and programs give them: nil is
// missing (§8: "A JSON null written to a key deletes it"), every Go number
// is a number (§8: "Numbers from files are float64"), and anything that is
// not a boolean, number or string is of the other kind.
func valueOf(x any) value {
	if x == nil {
		return value{}
	}
	rv := reflect.ValueOf(x)
	switch rv.Kind() {
	case reflect.Bool:
		return value{kind: kBool, b: rv.Bool()}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return value{kind: kNumber, f: float64(rv.Int())}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return value{kind: kNumber, f: float64(rv.Uint())}
	case reflect.Float32, reflect.Float64:
		return value{kind: kNumber, f: rv.Float()}
	case reflect.String:
		return value{kind: kString, s: rv.String()}
	}
	return value{kind: kOther, o: x}
}

// equal is the blackboard's equality (§8): values of different kinds are
// never equal, "`==` compares numbers numerically (`5 == 5.0`), lists and
// maps deeply".
func equal(x, y value) bool {
	if x.kind != y.kind {
		return false
	}
	switch x.kind {
	case kMissing:
		return true
	case kBool:
		return x.b == y.b
	case kNumber:
		return x.f == y.f // numerically: NaN ≠ NaN, -0 = 0
	case kString:
		return x.s == y.s
	}
	return deepEqual(x.o, y.o)
}

// deepEqual compares lists and maps element by element with equal, so that
// a number inside a list compares numerically whatever its Go type.
func deepEqual(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	isList := func(v reflect.Value) bool { return v.Kind() == reflect.Slice || v.Kind() == reflect.Array }
	isMap := func(v reflect.Value) bool { return v.Kind() == reflect.Map && v.Type().Key().Kind() == reflect.String }
	switch {
	case isList(va) && isList(vb):
		if va.Len() != vb.Len() {
			return false
		}
		for i := 0; i < va.Len(); i++ {
			if !equal(valueOf(va.Index(i).Interface()), valueOf(vb.Index(i).Interface())) {
				return false
			}
		}
		return true
	case isMap(va) && isMap(vb):
		if va.Len() != vb.Len() {
			return false
		}
		for _, k := range va.MapKeys() {
			w := vb.MapIndex(reflect.ValueOf(k.String()).Convert(vb.Type().Key()))
			if !w.IsValid() || !equal(valueOf(va.MapIndex(k).Interface()), valueOf(w.Interface())) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// same reports whether two values are the same for the differential test:
// like equal, but numbers bit for bit (NaN is the same as NaN, -0 differs
// from 0).
func same(x, y value) bool {
	if x.kind == kNumber && y.kind == kNumber {
		return math.Float64bits(x.f) == math.Float64bits(y.f) || (math.IsNaN(x.f) && math.IsNaN(y.f))
	}
	return equal(x, y)
}

// truthy is the truth of a scenario condition's key (scenario.md: "true (or
// a non-zero number, or a non-empty string)"); treegen's Cond mock also
// treats NaN as false.
func truthy(v value) bool {
	switch v.kind {
	case kBool:
		return v.b
	case kNumber:
		return v.f != 0 && !math.IsNaN(v.f)
	case kString:
		return v.s != ""
	}
	return false
}

// refKey returns the key of a "{key}" parameter (§6 Parameter rules).
func refKey(x any) (string, bool) {
	s, ok := x.(string)
	if !ok || len(s) < 3 || !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
		return "", false
	}
	return s[1 : len(s)-1], true
}

func (v value) String() string {
	switch v.kind {
	case kMissing:
		return "<missing>"
	case kBool:
		if v.b {
			return "true"
		}
		return "false"
	case kNumber:
		return formatFloat(v.f)
	case kString:
		return `"` + v.s + `"`
	}
	return sprint(v.o)
}
