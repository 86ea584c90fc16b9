#pragma once
// Operator structs (not read by the tool).
