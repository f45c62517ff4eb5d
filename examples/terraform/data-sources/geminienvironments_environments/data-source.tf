# Every self-hosted environment the API key can see.
data "geminienvironments_environments" "self_hosted" {
  mode = "self_hosted"
}

output "self_hosted_ids" {
  value = [for environment in data.geminienvironments_environments.self_hosted.environments : environment.id]
}
