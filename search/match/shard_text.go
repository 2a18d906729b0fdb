package match

import "fmt"

// Text is the summary as dchess match --shard prints it: the report of
// the task's games, then what the task did and, when it played, how to
// merge the tasks of base (the -o NAME they were given).
func (s ShardSummary) Text(base string) string {
	text := s.Report.Text()
	if s.Skipped {
		return text + fmt.Sprintf("Task %s was already played into %s with these settings; nothing to do\n", s.Shard, s.Output)
	}
	return text + fmt.Sprintf("Task %s: %d games in %s (%d continued from a stopped run); merge the tasks with: dchess match merge %s\n",
		s.Shard, s.Resumed+s.Played, s.Output, s.Resumed, base)
}
