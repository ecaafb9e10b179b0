package arbor

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
)

// Kind is the kind of a blackboard value.
type Kind uint8

// The kinds of blackboard values. KindNone is the kind of a missing value.
const (
	KindNone Kind = iota
	KindBool
	KindNumber
	KindString
	KindOther // any other Go value: lists, maps, user types
)

// String returns the kind's name as used in error messages.
func (k Kind) String() string {
	switch k {
	case KindNone:
		return "missing"
	case KindBool:
		return "boolean"
	case KindNumber:
		return "number"
	case KindString:
		return "string"
	case KindOther:
		return "other"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is a blackboard value tagged with its kind. Numbers are float64 (as in
// tree files); booleans and strings are stored without boxing, so writing
// them does not allocate (nor does writing a string that is a constant or
// already a Value). The zero Value is missing.
type Value struct {
	kind Kind
	num  float64 // numbers; booleans as 0 or 1
	ref  any     // the string (KindString) or the Go value (KindOther)
}

// Bool returns a boolean Value.
func Bool(b bool) Value {
	if b {
		return Value{kind: KindBool, num: 1}
	}
	return Value{kind: KindBool}
}

// Number returns a number Value.
func Number(f float64) Value { return Value{kind: KindNumber, num: f} }

// String returns a string Value.
func String(s string) Value { return Value{kind: KindString, ref: s} }

// ValueOf converts a Go value to a Value: nil is missing, booleans, all Go
// integer and float types and strings get their own kinds, and anything else
// (slices, maps, structs, pointers) is KindOther.
func ValueOf(x any) Value {
	switch t := x.(type) {
	case nil:
		return Value{}
	case Value:
		return t
	case bool:
		return Bool(t)
	case float64:
		return Number(t)
	case float32:
		return Number(float64(t))
	case int:
		return Number(float64(t))
	case int8:
		return Number(float64(t))
	case int16:
		return Number(float64(t))
	case int32:
		return Number(float64(t))
	case int64:
		return Number(float64(t))
	case uint:
		return Number(float64(t))
	case uint8:
		return Number(float64(t))
	case uint16:
		return Number(float64(t))
	case uint32:
		return Number(float64(t))
	case uint64:
		return Number(float64(t))
	case string:
		return String(t)
	}
	// Named types of those kinds (type Team string, type HP float64) are
	// values of the same kind.
	switch rv := reflect.ValueOf(x); rv.Kind() {
	case reflect.Bool:
		return Bool(rv.Bool())
	case reflect.String:
		return String(rv.String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return Number(float64(rv.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return Number(float64(rv.Uint()))
	case reflect.Float32, reflect.Float64:
		return Number(rv.Float())
	}
	return Value{kind: KindOther, ref: x}
}

// Kind returns the value's kind; KindNone when the value is missing.
func (v Value) Kind() Kind { return v.kind }

// IsMissing reports whether v holds no value.
func (v Value) IsMissing() bool { return v.kind == KindNone }

// Bool returns the boolean and whether v is a boolean.
func (v Value) Bool() (bool, bool) { return v.num != 0, v.kind == KindBool }

// Number returns the number and whether v is a number.
func (v Value) Number() (float64, bool) { return v.num, v.kind == KindNumber }

// Str returns the string and whether v is a string.
func (v Value) Str() (string, bool) {
	s, ok := v.ref.(string)
	return s, ok && v.kind == KindString
}

// str returns the string of a KindString value.
func (v Value) str() string {
	s, _ := v.ref.(string)
	return s
}

// Interface returns the value as a plain Go value (nil when missing).
func (v Value) Interface() any {
	switch v.kind {
	case KindBool:
		return v.num != 0
	case KindNumber:
		return v.num
	case KindString:
		return v.str()
	case KindOther:
		return v.ref
	}
	return nil
}

// Equal reports whether v and w are equal: values of different kinds are
// never equal, numbers compare numerically and other values deeply.
func (v Value) Equal(w Value) bool {
	if v.kind != w.kind {
		return false
	}
	switch v.kind {
	case KindNone:
		return true
	case KindBool, KindNumber:
		return v.num == w.num
	case KindString:
		return v.str() == w.str()
	}
	return deepEqual(v.ref, w.ref)
}

// deepEqual compares lists and maps deeply, with numbers compared by value
// whatever their Go type (a []any from a file equals a []int from Go).
func deepEqual(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	list := func(v reflect.Value) bool { return v.Kind() == reflect.Slice || v.Kind() == reflect.Array }
	dict := func(v reflect.Value) bool { return v.Kind() == reflect.Map && v.Type().Key().Kind() == reflect.String }
	switch {
	case list(va) && list(vb):
		if va.Len() != vb.Len() {
			return false
		}
		for i := 0; i < va.Len(); i++ {
			if !ValueOf(va.Index(i).Interface()).Equal(ValueOf(vb.Index(i).Interface())) {
				return false
			}
		}
		return true
	case dict(va) && dict(vb):
		if va.Len() != vb.Len() {
			return false
		}
		for _, k := range va.MapKeys() {
			w := vb.MapIndex(reflect.ValueOf(k.String()).Convert(vb.Type().Key()))
			if !w.IsValid() || !ValueOf(va.MapIndex(k).Interface()).Equal(ValueOf(w.Interface())) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// String formats the value for messages and traces.
func (v Value) String() string {
	switch v.kind {
	case KindNone:
		return "<missing>"
	case KindBool:
		return strconv.FormatBool(v.num != 0)
	case KindNumber:
		return strconv.FormatFloat(v.num, 'g', -1, 64)
	case KindString:
		return strconv.Quote(v.str())
	}
	return fmt.Sprint(v.ref)
}

// exactInt reports whether f is an integer within [lo, hi], where lo and
// hi are an integer type's bounds. The upper test is f < hi+1 because
// float64(hi) rounds up to a power of two for 64-bit types (2^63 is not an
// int64).
func exactInt(f float64, lo, hi float64) bool {
	return f == math.Trunc(f) && f >= lo && f < hi+1
}
