package rest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/lendingpipe/svc/dialer"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/reqbody"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leads"
)

// connectorScopes are what a dialer connector may do: record calls and
// presence, and update or mark the leads it calls.
var connectorScopes = []string{viewer.ScopeDialerWrite, viewer.ScopeLeadsWrite}

// connectorTypes are the event types the connector receives (SPEC 4.2).
var connectorTypes = []string{"call_event", "disposition", "recording", "lead_update", "dnc"}

// connectorHandlers receive POST /v1/dialer/connect/{orgToken}: events the
// dialer vendor pushes, authenticated by the organization's connector token.
type connectorHandlers struct {
	dialerHandlers
}

func (h connectorHandlers) receive(w http.ResponseWriter, r *http.Request) error {
	org, err := store.OrgByConnectorToken(r.Context(), h.client, chi.URLParam(r, "orgToken"))
	if errors.Is(err, store.ErrUnknownConnector) {
		return apperr.New(apperr.NotFound, "unknown connector")
	}
	if err != nil {
		return err
	}
	r = r.WithContext(viewer.NewContext(r.Context(), viewer.Viewer{OrgID: org.ID, Scopes: connectorScopes, Connector: true}))
	obj, form, err := connectorBody(r)
	if err != nil {
		return err
	}
	head, _, err := dialer.Normalize(obj, []string{"type"}, false, form)
	if err != nil {
		return err
	}
	typ, err := head.String("type", true)
	if err != nil {
		return err
	}
	delete(obj, "type")
	delete(obj, "event")
	switch *typ {
	case "call_event":
		return h.callEvent(w, r, obj, form)
	case "disposition":
		return h.connectorDisposition(w, r, obj, form)
	case "recording":
		return h.recording(w, r, obj, form)
	case "lead_update":
		return h.leadUpdate(w, r, obj)
	case "dnc":
		return h.dnc(w, r, obj, form)
	}
	return apperr.Invalid("type", "unknown event type %s; one of %s", apperr.Quote(*typ), strings.Join(connectorTypes, ", "))
}

// connectorBody reads a JSON or form-encoded body, by its Content-Type.
func connectorBody(r *http.Request) (map[string]json.RawMessage, bool, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, false, err
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "application/x-www-form-urlencoded" {
		obj, err := dialer.ParseForm(body)
		return obj, true, err
	}
	obj, err := reqbody.ParseObject(body)
	return obj, false, err
}

// withExtra keeps the members a vendor sent that we do not model in the
// event's metadata, so nothing it told us is lost.
func withExtra(meta, extra map[string]any) map[string]any {
	if len(extra) == 0 {
		return meta
	}
	if meta == nil {
		meta = map[string]any{}
	}
	meta["connector"] = extra
	return meta
}

func (h connectorHandlers) callEvent(w http.ResponseWriter, r *http.Request, obj map[string]json.RawMessage, form bool) error {
	p, extra, err := dialer.Normalize(obj, dialer.EventFields, false, form)
	if err != nil {
		return err
	}
	in, err := p.EventInput()
	if err != nil {
		return err
	}
	in.Metadata = withExtra(in.Metadata, extra)
	return h.recordCall(w, r, http.StatusOK, func(ctx context.Context) (*ent.CallEvent, error) {
		return h.resolver.Mutation().RecordCallEvent(ctx, in)
	})
}

func (h connectorHandlers) connectorDisposition(w http.ResponseWriter, r *http.Request, obj map[string]json.RawMessage, form bool) error {
	p, extra, err := dialer.Normalize(obj, dialer.DispositionFields, false, form)
	if err != nil {
		return err
	}
	in, err := p.DispositionInput()
	if err != nil {
		return err
	}
	ev := in.CallEvent()
	ev.Metadata = withExtra(nil, extra)
	return h.recordCall(w, r, http.StatusOK, func(ctx context.Context) (*ent.CallEvent, error) {
		return h.resolver.Mutation().RecordCallEvent(ctx, ev)
	})
}

func (h connectorHandlers) recording(w http.ResponseWriter, r *http.Request, obj map[string]json.RawMessage, form bool) error {
	p, _, err := dialer.Normalize(obj, []string{"externalCallId", "recordingUrl"}, false, form)
	if err != nil {
		return err
	}
	call, err := p.String("externalCallId", true)
	if err != nil {
		return err
	}
	url, err := p.String("recordingUrl", true)
	if err != nil {
		return err
	}
	return h.recordCall(w, r, http.StatusOK, func(ctx context.Context) (*ent.CallEvent, error) {
		return h.resolver.Mutation().AttachRecording(ctx, *call, *url)
	})
}

// leadUpdate patches a lead through the same flow as PATCH /v1/leads/{id}.
// Members may be camelCase or snake_case.
func (h connectorHandlers) leadUpdate(w http.ResponseWriter, r *http.Request, obj map[string]json.RawMessage) error {
	fields := map[string]json.RawMessage{}
	for k, v := range obj {
		name := apperr.FieldName(k)
		if _, dup := fields[name]; dup {
			return apperr.Invalid(name, "sent under two names")
		}
		fields[name] = v
	}
	p, _, err := dialer.Normalize(map[string]json.RawMessage{"leadId": fields["leadId"]}, []string{"leadId"}, true, false)
	if err != nil {
		return err
	}
	id, err := p.UUID("leadId", true)
	if err != nil {
		return err
	}
	delete(fields, "leadId")
	var body reqbody.LeadFields
	if err := reqbody.Decode(fields, &body, reqbody.PatchRefused); err != nil {
		return err
	}
	l, err := h.leads().mutate(r.Context(), func(ctx context.Context, c *ent.Client) (*ent.Lead, error) {
		return leads.Update(ctx, c, *id, body.UpdateInput())
	})
	if err != nil {
		return err
	}
	writeResource(w, r, http.StatusOK, leadResource(l))
	return nil
}

func (h connectorHandlers) leads() leadHandlers {
	return leadHandlers{resolver: h.resolver, client: h.client}
}

// dncAttributes is what a dnc event recorded.
type dncAttributes struct {
	Phone   *string  `json:"phone"`
	Reason  *string  `json:"reason"`
	LeadIDs []string `json:"leadIds" openapi:"uuid"`
}

func (h connectorHandlers) dnc(w http.ResponseWriter, r *http.Request, obj map[string]json.RawMessage, form bool) error {
	p, _, err := dialer.Normalize(obj, []string{"leadId", "phone", "reason"}, false, form)
	if err != nil {
		return err
	}
	leadID, err := p.UUID("leadId", false)
	if err != nil {
		return err
	}
	phone, err := p.String("phone", false)
	if err != nil {
		return err
	}
	reason, err := p.String("reason", false)
	if err != nil {
		return err
	}
	res, err := store.WithTxValue(r.Context(), h.client, func(ctx context.Context, _ *ent.Client) (*graph.DoNotCallResult, error) {
		return h.resolver.Mutation().MarkDoNotCall(ctx, leadID, phone, reason)
	})
	if err != nil {
		return err
	}
	a := dncAttributes{Phone: res.Phone, Reason: res.Reason, LeadIDs: make([]string, len(res.Leads))}
	for i, l := range res.Leads {
		a.LeadIDs[i] = l.ID.String()
	}
	id := "dnc_"
	if leadID != nil {
		id += leadID.String()
	} else {
		id += strings.TrimPrefix(*phone, "+")
	}
	writeResource(w, r, http.StatusOK, Resource{ID: id, Type: "do_not_call", Attributes: a})
	return nil
}
