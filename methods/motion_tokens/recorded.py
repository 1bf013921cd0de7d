"""A generated video set from the dataset's folder, by name: how users' renders and features enter a suite
(the video diffusion model itself is out of reach on CPU)."""
from __future__ import annotations

from collections.abc import Mapping

from harness import DataError, Method, RunContext
from methods.motion_tokens.params import RecordedParams
from methods.motion_tokens.video_data import VideoClip


class RecordedVideos(Method[RecordedParams]):
    def run(self, inputs: Mapping[str, VideoClip], ctx: RunContext) -> VideoClip:
        if self.params.name not in inputs:
            raise DataError(f"no generated set {self.params.name!r}; the folder holds {', '.join(sorted(inputs))}",
                            field="params.name")
        return inputs[self.params.name]
