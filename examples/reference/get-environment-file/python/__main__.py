import pulumi
import pulumi_gemini_environments as genv

config = pulumi.Config()
readme = genv.get_environment_file_output(environment_id=config.require("environmentId"), path="README.md")

pulumi.export("content", readme.content)
pulumi.export("sizeBytes", readme.size_bytes)
