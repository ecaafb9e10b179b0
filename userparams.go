package arbor

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"
)

// Param is a user node parameter that a tree file may give either as a
// literal or as a blackboard reference "{key}". Declare it as a field of a
// node's parameter struct:
//
//	type MoveTo struct {
//		Target arbor.Param[string] `arbor:"target,required"`
//	}
//
// and read it with Get, typically in Start (the spec reads references when
// the node starts). A missing reference is an error: return it and the node
// fails with the error reported.
//
// A Param[time.Duration] literal is a number of milliseconds, as every
// duration in files; a reference reads its key as a Key[time.Duration]
// does, as nanoseconds (see the package documentation on durations). For a
// duration that files and the blackboard both give in milliseconds, use a
// Param[float64].
type Param[T any] struct {
	lit  T
	key  Key[T]
	ref  bool
	name string // the parameter's name in the file, for Get's errors
}

// Lit returns a Param holding a literal value.
func Lit[T any](v T) Param[T] { return Param[T]{lit: v} }

// Ref returns a Param reading blackboard key name.
func Ref[T any](name string) Param[T] { return Param[T]{key: NewKey[T](name), ref: true} }

// Get returns the literal, or reads the referenced key from the agent's
// blackboard.
func (p Param[T]) Get(c *Ctx) (T, error) {
	if !p.ref {
		return p.lit, nil
	}
	v, err := p.key.Get(c.Blackboard())
	if err != nil {
		if p.name != "" {
			return v, fmt.Errorf("parameter %q ({%s}): %w", p.name, p.key.Name(), err)
		}
		return v, fmt.Errorf("parameter {%s}: %w", p.key.Name(), err)
	}
	return v, nil
}

// IsRef reports whether the parameter is a blackboard reference, and names
// the key.
func (p Param[T]) IsRef() (string, bool) { return p.key.Name(), p.ref }

func (p *Param[T]) setParam(name string, raw any) error {
	if s, ok := raw.(string); ok {
		if k, isRef := refKey(s); isRef {
			*p = Ref[T](k)
			p.name = name
			return nil
		}
	}
	var v T
	if d, ok := any(&v).(*time.Duration); ok {
		// As duration fields: a literal number of milliseconds.
		ms, ok := msDuration(raw)
		if !ok {
			return fmt.Errorf("want a duration in milliseconds (a number ≥ 0) or a {key} reference, got %s", describe(raw))
		}
		*d = ms
	} else if !convertTo(ValueOf(raw), &v) {
		return fmt.Errorf("want %s or a {key} reference, got %s", wantType(reflect.TypeOf(&v).Elem()), describe(raw))
	}
	*p = Lit(v)
	return nil
}

// wantType describes the values a parameter of Go type t takes, in the
// words of the files and then the Go type: "a number (float64)", "an
// integer from 0 to 255 (uint8)", "true or false (bool)", "a string
// (Team)"; another type by its name ("a vec2").
func wantType(t reflect.Type) string {
	words := ""
	switch k := t.Kind(); k {
	case reflect.Float64:
		words = "a number"
	case reflect.Float32:
		words = "a number a float32 holds exactly"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		words = "an integer"
		if t.Bits() < 64 {
			words = fmt.Sprintf("an integer from %d to %d", -(int64(1) << (t.Bits() - 1)), int64(1)<<(t.Bits()-1)-1)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		words = "an integer ≥ 0"
		if t.Bits() < 64 {
			words = fmt.Sprintf("an integer from 0 to %d", uint64(1)<<t.Bits()-1)
		}
	case reflect.Bool:
		words = "true or false"
	case reflect.String:
		words = "a string"
	default:
		return article(t.String())
	}
	return words + " (" + t.String() + ")"
}

// article puts "a" or "an" before a type's name.
func article(name string) string {
	if name != "" && strings.ContainsRune("aeiouAEIOU", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

type paramSetter interface {
	setParam(name string, raw any) error
}

var (
	paramSetterType = reflect.TypeOf((*paramSetter)(nil)).Elem()
	durationType    = reflect.TypeOf(time.Duration(0))
)

// paramSchema describes the parameter fields of a user node struct.
type paramSchema struct {
	fields []paramField
}

type paramField struct {
	index    int
	name     string
	required bool
	def      any // default as a raw value, nil for none
	info     ParamInfo
}

// infos describes the parameters (Registry.Describe); nil when there are
// none.
func (s *paramSchema) infos() []ParamInfo {
	if len(s.fields) == 0 {
		return nil
	}
	out := make([]ParamInfo, len(s.fields))
	for i, f := range s.fields {
		out[i] = f.info
	}
	return out
}

func (s *paramSchema) names() []string {
	out := make([]string, len(s.fields))
	for i, f := range s.fields {
		out[i] = f.name
	}
	return out
}

// schemaOf reads the exported fields of struct N. A field's parameter name
// is its `arbor:"name"` tag, or the field name with a lower-case first
// letter; `arbor:"-"` skips a field; options ",required" and
// ",default=VALUE" (VALUE in JSON, or a bare string) follow the name.
func schemaOf[N any]() (*paramSchema, error) {
	t := reflect.TypeOf((*N)(nil)).Elem()
	s := &paramSchema{}
	if t.Kind() != reflect.Struct {
		return s, nil
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("arbor")
		if tag == "-" {
			continue
		}
		pf := paramField{index: i, name: strings.ToLower(f.Name[:1]) + f.Name[1:]}
		parts := strings.Split(tag, ",")
		if parts[0] != "" {
			pf.name = parts[0]
		}
		for _, opt := range parts[1:] {
			switch {
			case opt == "required":
				pf.required = true
			case strings.HasPrefix(opt, "default="):
				text := strings.TrimPrefix(opt, "default=")
				var v any
				if err := json.Unmarshal([]byte(text), &v); err != nil {
					v = text
				}
				pf.def = v
			default:
				return nil, fmt.Errorf("field %s: unknown tag option %q", f.Name, opt)
			}
		}
		if !supportedField(f.Type) {
			return nil, fmt.Errorf("field %s: unsupported parameter type %s", f.Name, f.Type)
		}
		pf.info = ParamInfo{Name: pf.name, Required: pf.required}
		pf.info.Type, pf.info.Ref = describeField(f.Type)
		switch {
		case pf.required:
		case pf.def != nil:
			pf.info.Default = pf.def
		default:
			pf.info.Default = zeroRaw(pf.info.Type)
		}
		s.fields = append(s.fields, pf)
	}
	return s, nil
}

func supportedField(t reflect.Type) bool {
	if reflect.PointerTo(t).Implements(paramSetterType) || t == durationType {
		return true
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64,
		reflect.Interface:
		return true
	case reflect.Slice:
		return supportedField(t.Elem()) && t.Elem().Kind() != reflect.Slice
	case reflect.Map:
		return t.Key().Kind() == reflect.String && supportedField(t.Elem())
	}
	return false
}

// fill sets the fields of v from the node's parameters, reporting problems
// through pr.
func (s *paramSchema) fill(v reflect.Value, pr *paramReader) {
	for _, f := range s.fields {
		raw, ok := pr.get(f.name)
		if !ok {
			if f.required {
				pr.errf(f.name, "missing required parameter")
				continue
			}
			if f.def == nil {
				continue
			}
			raw = f.def
		}
		if err := setField(v.Field(f.index), raw, f.name); err != nil {
			pr.errf(f.name, "%v", err)
		}
	}
}

// msDuration reads a parameter written in milliseconds: a number ≥ 0 whose
// duration a time.Duration holds (NaN, infinities and over 292 years are
// refused).
func msDuration(raw any) (time.Duration, bool) {
	f, ok := ValueOf(raw).Number()
	ns := f * float64(time.Millisecond)
	if !ok || !(f >= 0) || ns >= math.MaxInt64 {
		return 0, false
	}
	return time.Duration(ns), true
}

// setField converts a raw parameter value into a field. name is the
// parameter's (with the index or member for an element of a list or an
// object), which a Param keeps for its errors.
func setField(fv reflect.Value, raw any, name string) error {
	if ps, ok := fv.Addr().Interface().(paramSetter); ok {
		return ps.setParam(name, raw)
	}
	if fv.Type() == durationType {
		ms, ok := msDuration(raw)
		if !ok {
			return fmt.Errorf("want a duration in milliseconds (a number ≥ 0), got %s%s", describe(raw), refHint(fv, raw))
		}
		fv.SetInt(int64(ms))
		return nil
	}
	switch fv.Kind() {
	case reflect.Interface:
		if raw == nil {
			return nil
		}
		rv := reflect.ValueOf(raw)
		if !rv.Type().AssignableTo(fv.Type()) {
			return fmt.Errorf("want %s, got %s", article(fv.Type().String()), describe(raw))
		}
		fv.Set(rv)
		return nil
	case reflect.Slice:
		list, ok := raw.([]any)
		if !ok {
			return fmt.Errorf("want a list, got %s", describe(raw))
		}
		out := reflect.MakeSlice(fv.Type(), len(list), len(list))
		for i, e := range list {
			if err := setField(out.Index(i), e, fmt.Sprintf("%s[%d]", name, i)); err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
		}
		fv.Set(out)
		return nil
	case reflect.Map:
		obj, ok := raw.(map[string]any)
		if !ok {
			return fmt.Errorf("want an object, got %s", describe(raw))
		}
		out := reflect.MakeMapWithSize(fv.Type(), len(obj))
		for k, e := range obj {
			ev := reflect.New(fv.Type().Elem()).Elem()
			if err := setField(ev, e, name+"."+k); err != nil {
				return fmt.Errorf("member %q: %w", k, err)
			}
			out.SetMapIndex(reflect.ValueOf(k), ev)
		}
		fv.Set(out)
		return nil
	}
	// Scalars: convert through a typed pointer so that integer fields
	// accept only exactly representable numbers.
	ok := false
	switch p := fv.Addr().Interface().(type) {
	case *bool:
		ok = convertTo(ValueOf(raw), p)
	case *string:
		ok = convertTo(ValueOf(raw), p)
	case *int:
		ok = convertTo(ValueOf(raw), p)
	case *int8:
		ok = convertTo(ValueOf(raw), p)
	case *int16:
		ok = convertTo(ValueOf(raw), p)
	case *int32:
		ok = convertTo(ValueOf(raw), p)
	case *int64:
		ok = convertTo(ValueOf(raw), p)
	case *uint:
		ok = convertTo(ValueOf(raw), p)
	case *uint8:
		ok = convertTo(ValueOf(raw), p)
	case *uint16:
		ok = convertTo(ValueOf(raw), p)
	case *uint32:
		ok = convertTo(ValueOf(raw), p)
	case *uint64:
		ok = convertTo(ValueOf(raw), p)
	case *float32:
		ok = convertTo(ValueOf(raw), p)
	case *float64:
		ok = convertTo(ValueOf(raw), p)
	default:
		// Named scalar types (type Team string): convert via the kind.
		ok = setKind(fv, ValueOf(raw))
	}
	if !ok {
		return fmt.Errorf("want %s, got %s%s", wantType(fv.Type()), describe(raw), refHint(fv, raw))
	}
	return nil
}

// refHint explains, for a field that is not a Param given a "{key}"
// reference, how to declare one that reads it.
func refHint(fv reflect.Value, raw any) string {
	if str, ok := raw.(string); ok {
		if _, isRef := refKey(str); isRef {
			return fmt.Sprintf(" (a {key} reference needs a field of type arbor.Param[%s])", fv.Type())
		}
	}
	return ""
}
