# An agent's environment: a README inline, and egress to GitHub only. Editing the README's content
# updates the environment in place; a change to the network replaces it.
resource "geminienvironments_environment" "example" {
  sources = [
    {
      type    = "inline"
      target  = "workspace/README.md"
      content = "Scratch space for the agent."
    },
  ]
  network = {
    allowlist = [
      { domain = "api.github.com" },
      { domain = "*.githubusercontent.com" },
    ]
  }
}

output "environment_id" {
  value = geminienvironments_environment.example.id
}

output "file_count" {
  value = geminienvironments_environment.example.file_count
}
