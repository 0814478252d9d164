"""What every pure part of the module returns instead of a result it cannot give: the errno the
command answers with and a message that names the argument, the value and what is accepted."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Refusal:
    errno: int
    message: str
