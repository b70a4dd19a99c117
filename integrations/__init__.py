"""Every call that leaves the machine, on the ground floor: the address guard each goes through where someone
other than the operator chose the address (`guard`), one retrying HTTP client (`http`), one chat-completions
client for the summaries and the machine raters (`chat`), where a machine rater's calls may go (`endpoints`),
a webhook message on the wire (`webhooks`) and GitHub's and Gitee's issue APIs (`github`, `gitee`).
The apps above decide what to ask and what the answers mean; nothing here knows a model of theirs."""
