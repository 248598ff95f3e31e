package core

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/cwx-dev/cwx/core/mcpclient"
)

// elicitFor answers an MCP server's elicitation during a call of its tool name by asking the
// call's Asker, the server named as the question's author. A form the terminal question
// can carry is asked: no field (accept or decline), one string field (free text, or its
// enum as the choices) or one boolean field (yes or no). Any other form is declined, as is
// every elicitation without an Asker. A skipped question cancels.
func (m *Manager) elicitFor(server, name string, asker Asker) func(context.Context, string, json.RawMessage) (mcpclient.Elicited, error) {
	return func(ctx context.Context, message string, schema json.RawMessage) (mcpclient.Elicited, error) {
		decline := mcpclient.Elicited{Action: "decline"}
		if asker == nil {
			return decline, nil
		}
		var s struct {
			Properties map[string]struct {
				Type string   `json:"type"`
				Enum []string `json:"enum"`
			} `json:"properties"`
		}
		_ = json.Unmarshal(schema, &s)
		q := Question{PluginID: mcpclient.OwnerPrefix + server, Kind: "tool", Name: name, Text: StripEscapes(message)}
		field, kind := "", ""
		var enum []string
		switch len(s.Properties) {
		case 0:
			q.Options = []QuestionOption{{Label: "accept"}, {Label: "decline"}}
		case 1:
			for k, p := range s.Properties {
				field, kind, enum = k, p.Type, p.Enum
			}
			switch {
			case kind == "string" && len(enum) > 0:
				for _, e := range enum {
					q.Options = append(q.Options, QuestionOption{Label: StripEscapes(e)})
				}
				q.Options = append(q.Options, QuestionOption{Label: "decline"})
			case kind == "string":
				q.Options, q.AllowText = []QuestionOption{{Label: "decline"}}, true
			case kind == "boolean":
				q.Options = []QuestionOption{{Label: "yes"}, {Label: "no"}, {Label: "decline"}}
			default:
				m.log.Warn("mcp: an elicitation form cwx cannot ask was declined", "server", server)
				return decline, nil
			}
		default:
			m.log.Warn("mcp: an elicitation form cwx cannot ask was declined", "server", server)
			return decline, nil
		}
		a, err := asker.Ask(ctx, q)
		if err != nil {
			return mcpclient.Elicited{Action: "cancel"}, nil
		}
		switch {
		case a.Kind == AnswerSkipped:
			return mcpclient.Elicited{Action: "cancel"}, nil
		case a.Kind == AnswerChoice && a.Choice == "decline":
			return decline, nil
		case field == "" && a.Choice == "accept":
			return mcpclient.Elicited{Action: "accept", Content: map[string]any{}}, nil
		case kind == "boolean" && (a.Choice == "yes" || a.Choice == "no"):
			return mcpclient.Elicited{Action: "accept", Content: map[string]any{field: a.Choice == "yes"}}, nil
		case kind == "string" && a.Kind == AnswerText:
			return mcpclient.Elicited{Action: "accept", Content: map[string]any{field: a.Text}}, nil
		case kind == "string" && slices.Contains(enum, a.Choice):
			return mcpclient.Elicited{Action: "accept", Content: map[string]any{field: a.Choice}}, nil
		}
		return decline, nil
	}
}
