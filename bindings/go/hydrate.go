package ddbst

// HydrateAnswer is one answer to hydration request Chunk (its BatchGetItem)
// or to one of that request's follow-ups.
type HydrateAnswer struct {
	Chunk    int
	Response []byte
}

// HydrateOptions: Attributes reads only these (with the keys; default the
// whole items); Consistent reads strongly; Answers are every answer so far
// to the hydration's requests.
type HydrateOptions struct {
	Attributes []string
	Consistent bool
	Answers    []HydrateAnswer
}

// Hydration is a projected index's page made whole: Requests are the
// BatchGetItem bodies of its full items (100 keys each). With answers,
// Items are the full items in the page's order (nil: not there any more),
// Missing the indices of those deleted since the query, Pending of those not
// answered yet (unanswered or unprocessed: send the follow-ups Page gives).
type Hydration struct {
	Requests []Request   `json:"requests"`
	Items    []*PageItem `json:"items,omitempty"`
	Missing  []int       `json:"missing,omitempty"`
	Pending  []int       `json:"pending,omitempty"`
}

// Hydrate reads a Query answer of a KEYS_ONLY or INCLUDE index into the
// requests of its full items, and with opts.Answers, those items.
func (s *Session) Hydrate(response []byte, opts HydrateOptions) (*Hydration, error) {
	req := Values{"op": "hydrate", "response": string(response)}
	if opts.Attributes != nil {
		req["attributes"] = opts.Attributes
	}
	if opts.Consistent {
		req["consistent"] = true
	}
	if opts.Answers != nil {
		answers := make([]Values, len(opts.Answers))
		for i, a := range opts.Answers {
			answers[i] = Values{"chunk": a.Chunk, "response": string(a.Response)}
		}
		req["answers"] = answers
	}
	var h Hydration
	if err := s.Call(req, &h); err != nil {
		return nil, err
	}
	return &h, nil
}
