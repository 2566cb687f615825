package bounds

// Len is the inclusive range of a text's length in characters (SPEC 8
// counts characters, not bytes). A Max of 0 sets no upper bound.
type Len struct{ Min, Max int }

// The lengths of text fields, the one declaration the ent validators, the
// request decoders and the OpenAPI document read.
var (
	BusinessName       = Len{1, 255}
	PersonName         = Len{0, 100} // a contact's first or last name
	Industry           = Len{0, 100}
	Phone              = Len{0, 20}
	Email              = Len{0, 254}
	ExternalID         = Len{1, 255} // an external id given as a string
	DNCReason          = Len{0, 500}
	Tag                = Len{1, MaxTagLen}
	URL                = Len{1, 2048} // a webhook subscription's address
	SubscriptionSecret = Len{16, 256}
	Named              = Len{1, MaxName} // an automation's or inbound endpoint's name
	CallID             = Len{1, MaxCallID}
	Disposition        = Len{1, MaxDisposition}
	Notes              = Len{0, MaxNotes}
	Campaign           = Len{0, MaxCampaign}
	NoteBody           = Len{1, 10_000} // PRODUCT 10.1
	TaskTitle          = Len{1, 200}    // PRODUCT 10.2
	StipulationText    = Len{1, 100}    // PRODUCT 11.1
	StipulationReason  = Len{1, 500}    // a waiver's or a reopening's reason
)

// Field is the bounds of one request member as the document states them.
type Field struct {
	Length Len // of the text, or of each item of a list
	// Items is the most items of a list or members of an object; 0: no
	// limit. MinItems is the fewest items of a list.
	Items, MinItems int
	// Range bounds an integer when set.
	Range *Range
}

// Fields are the request members' bounds under the names the request
// structs' bound tags give them.
var Fields = map[string]Field{
	"businessName":    {Length: BusinessName},
	"personName":      {Length: PersonName},
	"industry":        {Length: Industry},
	"phone":           {Length: Phone},
	"email":           {Length: Len{Max: Email.Max}},
	"tags":            {Length: Tag, Items: MaxTags},
	"customFields":    {Items: MaxCustomFields},
	"externalIds":     {Items: MaxExternalIDs},
	"externalId":      {Length: ExternalID},
	"url":             {Length: Len{Max: URL.Max}},
	"secret":          {Length: SubscriptionSecret},
	"name":            {Length: Named},
	"externalCallId":  {Length: CallID},
	"disposition":     {Length: Disposition},
	"notes":           {Length: Notes},
	"campaignName":    {Length: Campaign},
	"durationSeconds": {Range: &Range{0, MaxDurationSeconds}},
	"events":          {MinItems: 1}, // a subscription's event types
	"actions":         {MinItems: 1}, // an automation's actions
}
