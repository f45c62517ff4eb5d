# A credential made elsewhere, by its credential_id. Its secret is write-only (the API never returns
# it): the first apply after the import sets it from the configuration.
terraform import geminienvironments_credential.github github-token
