package protocol

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// FieldType is the wire type of one field, as rendered into protocol.generated.ts.
type FieldType struct {
	T      string     // string, uint, int, bool, any, object_any, shape, array, enum, map
	Shape  string     // for T == "shape"
	Of     *FieldType // for T == "array" and "map"
	Values []string   // for T == "enum"
}

// FieldSpec is one field of a shape.
type FieldSpec struct {
	Name     string
	Type     FieldType
	Required bool
}

// Shape is the description of one wire type. Strict applies to what the core sends:
// everything a host sends is strict at every depth whatever this says, except the
// AnyObject shape, which accepts any object in both directions.
type Shape struct {
	Name   string
	Strict bool
	Fields []FieldSpec
}

// tolerantShapes are the core→host types marked T in the method sheet: the host ignores
// unknown fields in them.
var tolerantShapes = map[string]bool{
	"InitializeParams": true,
	"HostLimits":       true,
	"ActivateParams":   true,
	"EntryRef":         true,
	"DeactivateParams": true,
	"ToolCallParams":   true,
	"CommandRunParams": true,
	"RegisterResult":   true,
}

// enumValues lists the values of every named string type used as an enum.
var enumValues = map[reflect.Type][]string{
	reflect.TypeFor[Tier]():              {string(TierPlugin), string(TierBuiltin)},
	reflect.TypeFor[RuntimeName]():       {string(RuntimeNode), string(RuntimeBun)},
	reflect.TypeFor[RegisterKind]():      {string(KindTool), string(KindCommand), string(KindHook), string(KindPromptSection)},
	reflect.TypeFor[ActivateStatus]():    {string(ActivateOK), string(ActivateFailed)},
	reflect.TypeFor[CommandResultKind](): {string(CommandSuccess), string(CommandError), string(CommandSubmit)},
	reflect.TypeFor[HookVerdictKind]():   {string(HookAbstain), string(HookDeny), string(HookAsk), string(HookAnnotate), string(HookRevise)},
	reflect.TypeFor[ContentType]():       {string(ContentText), string(ContentImage), string(ContentAudio), string(ContentResourceLink), string(ContentResource)},
	reflect.TypeFor[UserAnswerKind]():    {string(AnswerChoice), string(AnswerText), string(AnswerSkipped)},
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

var shapes = sync.OnceValue(buildShapes)

// Shapes returns every wire shape reachable from the method table, by name.
func Shapes() map[string]*Shape { return shapes() }

func buildShapes() map[string]*Shape {
	out := make(map[string]*Shape)
	for _, m := range methodTable {
		addShape(out, m.params)
		if m.result != nil {
			addShape(out, m.result)
		}
	}
	addShape(out, reflect.TypeFor[RPCError]())
	out[AnyObjectShape] = &Shape{Name: AnyObjectShape}
	return out
}

func addShape(out map[string]*Shape, t reflect.Type) {
	if _, done := out[t.Name()]; done {
		return
	}
	sh := &Shape{Name: t.Name(), Strict: !tolerantShapes[t.Name()]}
	out[t.Name()] = sh
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		optional := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
		ft := fieldType(out, f.Type, f.Tag.Get("cwx") == "object")
		sh.Fields = append(sh.Fields, FieldSpec{Name: name, Type: ft, Required: !optional})
	}
}

func fieldType(out map[string]*Shape, t reflect.Type, object bool) FieldType {
	if t == rawMessageType {
		if object {
			return FieldType{T: "object_any"}
		}
		return FieldType{T: "any"}
	}
	if vals, ok := enumValues[t]; ok {
		return FieldType{T: "enum", Values: vals}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return fieldType(out, t.Elem(), object)
	case reflect.String:
		return FieldType{T: "string"}
	case reflect.Uint64:
		return FieldType{T: "uint"}
	case reflect.Int:
		return FieldType{T: "int"}
	case reflect.Bool:
		return FieldType{T: "bool"}
	case reflect.Slice:
		of := fieldType(out, t.Elem(), false)
		return FieldType{T: "array", Of: &of}
	case reflect.Map:
		of := fieldType(out, t.Elem(), false)
		return FieldType{T: "map", Of: &of}
	case reflect.Struct:
		addShape(out, t)
		return FieldType{T: "shape", Shape: t.Name()}
	}
	panic(fmt.Sprintf("protocol: wire type %s has no JSON mapping", t))
}
