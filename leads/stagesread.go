package leads

import (
	"context"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/stagesread"
)

// WithStagesRead marks ctx with stages the caller read in its transaction,
// so the lead hooks check a lead's stage and label its moves without
// reading them again.
func WithStagesRead(ctx context.Context, stages ...*ent.PipelineStage) context.Context {
	read := make([]stagesread.Stage, 0, len(stages))
	for _, st := range stages {
		if st != nil {
			read = append(read, stagesread.Stage{ID: st.ID, OrgID: st.OrgID, Label: st.StageLabel})
		}
	}
	return stagesread.With(ctx, read...)
}
