export const PAGE_SIZE_DEFAULT = 20;
export const PAGE_SIZE_MAX = 100;

export interface PageRequest {
  page: number;
  size: number;
}

export interface Page<T> {
  data: T[];
  total: number;
  page: number;
  size: number;
  pages: number;
}

export const offsetOf = ({ page, size }: PageRequest): number => (page - 1) * size;

export const pageCount = (total: number, size: number): number => (total <= 0 ? 0 : Math.ceil(total / size));

export const toPage = <T>(data: T[], total: number, request: PageRequest): Page<T> => ({
  data,
  total,
  page: request.page,
  size: request.size,
  pages: pageCount(total, request.size),
});

export const isValidPageRequest = ({ page, size }: PageRequest): boolean =>
  Number.isInteger(page) && page >= 1 && Number.isInteger(size) && size >= 1 && size <= PAGE_SIZE_MAX;
